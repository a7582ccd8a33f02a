import 'fake-indexeddb/auto';
import type { RestoreReport } from '../pages/backup.ts';
import { type Browser, backUpWith, browser, s3, wipe } from '../unit/backup/browsers.ts';
import { seedProfile } from '../unit/backup/seed.ts';
import { S3_KEY, startS3, type TestServer } from '../unit/backup/servers.ts';
import { expect, type Page, test } from './app-test.ts';

// A restore opens and writes the backup's records in a Web Worker of its own (src/backup/restore-thread.ts),
// so the page's main thread stays responsive: the page's restore goes through that worker, and when the
// worker cannot run, the restore says so by name rather than hanging or writing half in silence. The
// backup is made from Node (fake-indexeddb) into a real S3-compatible server (s3rver) on 127.0.0.1, and
// restored by the test build's harness page (test/pages/backup.ts) through egress, as Settings does.

const PASSPHRASE = 'a passphrase for the restore thread';
let server: TestServer;
let seeded: Browser;

test.beforeAll(async () => {
  server = await startS3('baton', { cors: true });
  wipe();
  seeded = await browser('thread');
  await seedProfile(seeded.names, 'thread');
  await backUpWith(seeded, await s3(seeded, server), PASSPHRASE);
});
test.afterAll(async () => {
  await server?.close();
});

async function restoreIn(page: Page): Promise<RestoreReport> {
  await page.goto('/test/pages/backup.html');
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const bucket = JSON.stringify({ url: server.url, key: S3_KEY, passphrase: PASSPHRASE });
  return (await page.evaluate(`globalThis.__backup.restoreFrom(${bucket})`)) as RestoreReport;
}

test("the page's restore writes the records in the restore worker", async ({ page }) => {
  const workers: string[] = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  const report = await restoreIn(page);
  expect(report.problems).toEqual([]);
  expect(workers.some((url) => /restore\.worker/.test(url))).toBe(true);
  expect(report.restored).toBeGreaterThan(5);
  // What the worker wrote is in the page's own databases, every kind of record the backup holds.
  expect(report.here).toEqual(
    expect.arrayContaining(['run:thread-r1', 'thread:thread-t1', 'worker:w-thread']),
  );
  const kinds = new Set(report.here.map((key) => key.slice(0, key.indexOf(':'))));
  expect([...kinds]).toEqual(
    expect.arrayContaining(['bench', 'file', 'outcome', 'run', 'thread', 'tool', 'worker']),
  );
});

test('a restore worker that cannot start is named, and nothing is restored', async ({ page }) => {
  // As when the worker's script cannot be fetched (offline on a first visit, a blocked request).
  await page.route(/restore\.worker/, (route) => route.abort());
  const failed = await restoreIn(page).then(
    () => 'restored',
    (error: Error) => error.message,
  );
  expect(failed).toMatch(/its thread \(restore worker\) failed .*restore again to go on/);
  // The page's own settings (localStorage) aside, which it had before: no record came from the backup.
  const here = (await page.evaluate('globalThis.__backup.recordsHere()')) as string[];
  expect(here.filter((key) => !key.startsWith('settings:'))).toEqual([]);
});
