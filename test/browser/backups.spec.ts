import { startS3, type TestServer } from '../unit/backup/servers.ts';
import { addWorker } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// The user's path to a backup and back: a bucket (a real S3-compatible server, s3rver, on 127.0.0.1, its
// CORS letting the page in), a passphrase, "Back up now", then a fresh browser restores from it.

let server: TestServer;
test.beforeAll(async () => {
  server = await startS3('baton', { cors: true });
});
test.afterAll(async () => {
  await server.close();
});

async function useBucket(page: Page): Promise<void> {
  await page.goto('/#/settings/backups');
  const panel = page.getByTestId('backups-panel');
  await panel.getByLabel('Endpoint').fill(server.url);
  await panel.getByLabel('Bucket', { exact: true }).fill('baton');
  await panel.getByLabel('Region').fill('us-east-1');
  await panel.getByLabel('Access key ID').fill('S3RVER');
  await panel.getByLabel('Secret access key').fill('S3RVER');
  await panel.getByTestId('backup-save-target').click();
  await expect(panel.getByTestId('backup-where')).toContainText('bucket baton at');
  await panel.getByLabel('Backup passphrase').fill('a long backup passphrase');
}

test('a run, the pool and settings backed up to a bucket are restored in a fresh browser', async ({
  page,
  browser,
}) => {
  await seedVersion1(page, [storedRun('kept-run', 1000)], [storedStep('kept-run')]);
  await page.goto('/#/settings/pool');
  await addWorker(page, { baseURL: 'http://127.0.0.1:9/v1', model: 'kept-model', label: 'Kept worker' });
  await page.getByTestId('theme-dark').check();
  await useBucket(page);
  await page.getByTestId('backup-now').click();
  await expect(page.getByTestId('backup-status')).toContainText(/Backed up .*: 1 run, 1 thread, 1 worker/);
  // Every request went through egress, in the ledger as a backup.
  await page.goto('/#/ledger');
  await expect(page.getByTestId('ledger-panel')).toContainText('backup');

  const fresh = await browser.newContext({ serviceWorkers: 'block' });
  await openStepsByDefault(fresh);
  const other = await fresh.newPage();
  await useBucket(other);
  await other.getByTestId('backup-restore').click();
  await expect(other.getByTestId('backup-said')).toContainText('Restored');
  // The pool is shown at once; the settings (the theme) on the reload the panel offers.
  await expect(other.getByTestId('pool-table')).toContainText('Kept worker');
  await expect(other.locator('html')).not.toHaveAttribute('data-theme', 'dark');
  await other.getByTestId('backup-reload').getByRole('button', { name: 'Reload now' }).click();
  await expect(other.locator('html')).toHaveAttribute('data-theme', 'dark');
  await other.goto('/#/history');
  await expect(other.getByRole('link', { name: 'Stored question kept-run' })).toBeVisible();
  await fresh.close();
});

test('two browsers backing up to one bucket each get the other’s thread', async ({ page, browser }) => {
  // Two profiles, one question each, both backed up to the bucket above (each as its own device).
  const second = await browser.newContext({ serviceWorkers: 'block' });
  await openStepsByDefault(second);
  const other = await second.newPage();
  await seedVersion1(page, [storedRun('laptop-run', 1000)], [storedStep('laptop-run')]);
  await seedVersion1(other, [storedRun('phone-run', 2000)], [storedStep('phone-run')]);
  for (const p of [page, other]) {
    await useBucket(p);
    await p.getByTestId('backup-now').click();
    await expect(p.getByTestId('backup-said')).toContainText('Backed up');
  }
  // Each restores, and opens the thread the other asked.
  for (const [p, theirs] of [
    [page, 'phone-run'],
    [other, 'laptop-run'],
  ] as const) {
    await p.getByTestId('backup-restore').click();
    await expect(p.getByTestId('backup-said')).toContainText('Restored');
    await p.goto('/#/history');
    await p.getByRole('link', { name: `Stored question ${theirs}` }).click();
    await expect(p.getByText(`Stored answer ${theirs}`).first()).toBeVisible();
  }
  await second.close();
});

/**
 * The folder picker is the browser's own dialog, which a test cannot answer: it is answered with a folder
 * of the origin private file system, a FileSystemDirectoryHandle as showDirectoryPicker gives (same
 * interface, same permission calls), so the app's folder target runs on the real File System Access API.
 */
async function pickPrivateFolder(page: Page): Promise<void> {
  await page.addInitScript(() => {
    Object.assign(window, {
      showDirectoryPicker: async () =>
        (await navigator.storage.getDirectory()).getDirectoryHandle('Baton backups', { create: true }),
    });
  });
}

/** The folder's files, name and bytes. */
function folderFiles(page: Page): Promise<{ name: string; bytes: number[] }[]> {
  return page.evaluate(async () => {
    const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle('Baton backups');
    const out: { name: string; bytes: number[] }[] = [];
    for await (const [name, handle] of folder as unknown as AsyncIterable<[string, FileSystemFileHandle]>) {
      out.push({ name, bytes: [...new Uint8Array(await (await handle.getFile()).arrayBuffer())] });
    }
    return out;
  });
}

test('a folder on this computer holds a sealed backup, restored in another browser given that folder', async ({
  page,
  browser,
}) => {
  await pickPrivateFolder(page);
  await seedVersion1(page, [storedRun('folder-run', 1000)], [storedStep('folder-run')]);
  await page.goto('/#/settings/backups');
  const panel = page.getByTestId('backups-panel');
  await panel.getByTestId('backup-kind').selectOption('folder');
  await panel.getByTestId('backup-save-target').click();
  await expect(panel.getByTestId('backup-where')).toContainText('folder Baton backups');
  await panel.getByLabel('Backup passphrase').fill('a long backup passphrase');
  await panel.getByTestId('backup-now').click();
  await expect(panel.getByTestId('backup-status')).toContainText(/Backed up .*: 1 run, 1 thread/);

  // The header, a device's head, a segment of its index and a pack; no question or answer in the clear.
  const files = await folderFiles(page);
  expect(files.map((f) => (f.name[0] === 'b' ? f.name : f.name[0])).sort()).toEqual([
    'baton-backup.json',
    'd',
    'o',
    's',
  ]);
  for (const f of files) {
    const text = Buffer.from(f.bytes).toString('latin1');
    expect(text).not.toContain('folder-run');
  }

  // Another browser, the same folder (its files copied there): restored.
  const fresh = await browser.newContext({ serviceWorkers: 'block' });
  await openStepsByDefault(fresh);
  const other = await fresh.newPage();
  await pickPrivateFolder(other);
  await other.goto('/favicon.svg');
  await other.evaluate(async (copied) => {
    const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle('Baton backups', {
      create: true,
    });
    for (const f of copied) {
      const writable = await (await folder.getFileHandle(f.name, { create: true })).createWritable();
      await writable.write(new Uint8Array(f.bytes));
      await writable.close();
    }
  }, files);
  await other.goto('/#/settings/backups');
  const otherPanel = other.getByTestId('backups-panel');
  await otherPanel.getByTestId('backup-kind').selectOption('folder');
  await otherPanel.getByTestId('backup-save-target').click();
  await expect(otherPanel.getByTestId('backup-where')).toContainText('folder Baton backups');
  await otherPanel.getByLabel('Backup passphrase').fill('a long backup passphrase');
  await otherPanel.getByTestId('backup-restore').click();
  await expect(otherPanel.getByTestId('backup-said')).toContainText('Restored');
  await other.goto('/#/history');
  await expect(other.getByRole('link', { name: 'Stored question folder-run' })).toBeVisible();
  await fresh.close();
});
