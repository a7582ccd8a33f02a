/**
 * Backups against a real S3-compatible server (s3rver) and a real WebDAV server (webdav-server) on
 * 127.0.0.1: a seeded profile backed up, the browser's storage wiped, restored record for record; no
 * plaintext on the server's disk; a wrong passphrase, a tampered object, a newer format, wrong
 * credentials; every request in the egress ledger.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupError, HEADER_NAME } from '../../../src/backup/format.ts';
import { singleFileTarget } from '../../../src/backup/targets/single-file.ts';
import type { BackupTarget } from '../../../src/backup/targets/target.ts';
import { BACKUP_S3 } from '../../../src/egress/backup-endpoints.ts';
import { type Browser, backUpWith, browser, dav, restoreWith, s3, wipe } from './browsers.ts';
import { dumpProfile, namesFor, plain, secretsOf, seedProfile } from './seed.ts';
import { DAV_PASSWORD, filesUnder, startS3, startWebDav, type TestServer } from './servers.ts';

const PASSPHRASE = 'correct horse battery staple';
const PROVIDER_KEY = 'sk-test-provider-key-0123456789abcdef';

/** Which of `texts` appear anywhere on the server's disk, as UTF-8 or UTF-16. */
function leaked(server: TestServer, texts: string[]): string[] {
  const files = filesUnder(server.directory);
  return texts.filter((text) =>
    files.some(
      (f) => f.bytes.includes(Buffer.from(text, 'utf8')) || f.bytes.includes(Buffer.from(text, 'utf16le')),
    ),
  );
}

let servers: TestServer[] = [];
beforeEach(() => {
  wipe();
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function started(server: Promise<TestServer>): Promise<TestServer> {
  const s = await server;
  servers.push(s);
  return s;
}

describe('a backup to a real S3-compatible server', () => {
  it('restores every record of a wiped browser byte for byte, stores no plaintext, and is in the ledger', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    await a.vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: PROVIDER_KEY });
    const before = await plain(await dumpProfile(a.names));
    const result = await backUpWith(a, await s3(a, server), PASSPHRASE);
    // Eight small records: one pack.
    expect(result.uploadedObjects).toBe(1);
    expect(result.status.holds).toMatchObject({
      run: 2,
      thread: 1,
      file: 2,
      outcome: 1,
      worker: 1,
      bench: 1,
    });

    const rows = (await a.ledger.list()).filter((e) => e.purpose === 'backup');
    expect(rows.length).toBeGreaterThan(result.uploadedObjects);
    expect(rows.every((e) => e.host === new URL(server.url).host && e.sent)).toBe(true);
    expect(rows.filter((e) => e.method === 'PUT').reduce((n, e) => n + e.bytesOut, 0)).toBeGreaterThan(0);

    const s = secretsOf('alpha');
    expect(
      leaked(server, [
        s.question,
        s.answer,
        s.fileName,
        s.fileText,
        s.stepAnswer,
        s.threadTitle,
        PROVIDER_KEY,
        PASSPHRASE,
      ]),
    ).toEqual([]);

    wipe();
    const fresh = await browser('a');
    const restored = await restoreWith(fresh, await s3(fresh, server), PASSPHRASE);
    expect(restored.problems).toEqual([]);
    expect(await plain(await dumpProfile(fresh.names))).toEqual(before);
    // Provider keys stay out unless asked for.
    expect((await fresh.vault.listKeys()).map((k) => k.providerId)).toEqual([BACKUP_S3]);
  });

  it('sends only what changed: one new run after a backup is one object, and a cut-off backup resumes', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    const target = await s3(a, server);
    await backUpWith(a, target, PASSPHRASE);
    expect((await backUpWith(a, target)).changed).toBe(0);

    await seedProfile(namesFor('a'), 'beta', 5_000);
    // The second backup is cut off after its records went up: its index is never written.
    let puts = 0;
    const failing: BackupTarget = {
      ...target,
      async put(name, bytes) {
        if (++puts > 1) throw new Error('connection lost');
        return target.put(name, bytes);
      },
    };
    await expect(backUpWith(a, failing)).rejects.toThrow('connection lost');
    const resumed = await backUpWith(a, target);
    // beta's two runs, thread, file, outcome, worker, tool server, bench (its chart is alpha's, byte for
    // byte: the same file, stored once): 8 records, uploaded before the cut, so not again.
    expect(resumed.changed).toBe(8);
    expect(resumed.uploadedObjects).toBe(0);

    // One new run: one object.
    const profile = await a.open();
    profile.close();
    const { openRunStore } = await import('../../../src/records/run-store.ts');
    const { runWithFiles } = await import('../../fixtures/attachments.ts');
    const runs = await openRunStore(a.names.runs);
    await runs.putRun(
      runWithFiles('gamma-r1', [], { question: 'gamma?', createdAt: 9_000, updatedAt: 9_000 }),
    );
    runs.close();
    const one = await backUpWith(a, target);
    expect([one.changed, one.uploadedObjects]).toEqual([1, 1]);
  });

  it('refuses wrong credentials by name, and a wrong passphrase changes nothing', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    // s3rver checks the access key id, not a V4 signature's secret: an unknown id is what it can refuse.
    const refused = await backUpWith(a, await s3(a, server, 'NOT-A-KEY-ID:S3RVER'), PASSPHRASE).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ problem: 'credentials' });
    expect((refused as Error).message).toMatch(/refused the credentials \(403 InvalidAccessKeyId\)/);
    await backUpWith(a, await s3(a, server), PASSPHRASE);

    const b = await browser('b');
    await seedProfile(b.names, 'bravo');
    const before = await plain(await dumpProfile(b.names));
    const error = await restoreWith(b, await s3(b, server), 'not the passphrase').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupError);
    expect((error as BackupError).message).toMatch(/passphrase is wrong/);
    expect(await plain(await dumpProfile(b.names))).toEqual(before);
    expect(await b.state.keys()).toBeUndefined();
  });

  it('merges two browsers backing up to one bucket, and a deletion travels as a tombstone', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    const b = await browser('b');
    await seedProfile(a.names, 'alpha');
    await seedProfile(b.names, 'bravo', 2_000);
    const ta = await s3(a, server);
    const tb = await s3(b, server);
    await backUpWith(a, ta, PASSPHRASE);
    await backUpWith(b, tb, PASSPHRASE);
    await restoreWith(a, ta);
    await restoreWith(b, tb);
    const threads = async (x: Browser) => {
      const dump = await dumpProfile(x.names);
      return (dump[`${x.names.runs}/threads`] as { id: string }[]).map((t) => t.id).sort();
    };
    expect(await threads(a)).toEqual(['alpha-t1', 'bravo-t1']);
    expect(await threads(b)).toEqual(['alpha-t1', 'bravo-t1']);

    // a deletes bravo's follow-up; b gets the deletion, and only that.
    const { openRunStore } = await import('../../../src/records/run-store.ts');
    const runs = await openRunStore(a.names.runs);
    await runs.deleteRun('bravo-r2');
    runs.close();
    await backUpWith(a, ta);
    const merged = await restoreWith(b, tb);
    expect(merged.deleted).toBe(1);
    const left = (await dumpProfile(b.names))[`${b.names.runs}/runs`] as { id: string }[];
    expect(left.map((r) => r.id).sort()).toEqual(['alpha-r1', 'alpha-r2', 'bravo-r1']);
  });
});

describe('a backup to a real WebDAV server', () => {
  it('restores into a wiped browser, stores no plaintext, and names a tampered object while restoring the rest', async () => {
    const server = await started(startWebDav());
    const a = await browser('a');
    const target = await dav(a, server);
    // Two backups: two packs of records.
    await seedProfile(a.names, 'alpha');
    await backUpWith(a, target, PASSPHRASE);
    await seedProfile(a.names, 'beta', 5_000);
    await backUpWith(a, target);
    const before = await plain(await dumpProfile(a.names));
    const s = secretsOf('alpha');
    expect(
      leaked(server, [s.question, s.answer, s.fileName, s.fileText, s.stepAnswer, DAV_PASSWORD]),
    ).toEqual([]);

    wipe();
    const fresh = await browser('a');
    await restoreWith(fresh, await dav(fresh, server), PASSPHRASE);
    expect(await plain(await dumpProfile(fresh.names))).toEqual(before);

    // beta's pack changed on the server: the restore names it for each of its records, and writes alpha's.
    wipe();
    const packs = filesUnder(server.directory).filter((f) => /\/o[0-9a-f]+$/.test(f.path));
    expect(packs).toHaveLength(2);
    const smaller = packs.sort((x, y) => x.bytes.length - y.bytes.length)[0];
    if (!smaller) throw new Error('no object on the server');
    const { writeFileSync } = await import('node:fs');
    const changed = Buffer.from(smaller.bytes);
    changed[changed.length - 5] = (changed[changed.length - 5] ?? 0) ^ 1;
    writeFileSync(smaller.path, changed);
    const third = await browser('a');
    const result = await restoreWith(third, await dav(third, server), PASSPHRASE);
    // beta's 8 records (2 runs, a thread, a file, a mark, a worker, a tool server, a bench run) are named;
    // alpha's 9 are back.
    expect(result.problems).toHaveLength(8);
    for (const problem of result.problems) {
      expect(problem).toMatch(/failed its authentication check/);
      expect(problem).toContain(smaller.path.split('/').pop());
    }
    expect(result.problems.some((p) => p.includes('run beta-r1'))).toBe(true);
    expect(result.restored).toBe(9);
  });

  it('refuses a backup written by a newer Baton by name, before reading anything', async () => {
    const server = await started(startWebDav());
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    const target = await dav(a, server);
    await backUpWith(a, target, PASSPHRASE);
    const header = JSON.parse(new TextDecoder().decode(await target.get(HEADER_NAME))) as { version: number };
    await target.put(HEADER_NAME, new TextEncoder().encode(JSON.stringify({ ...header, version: 2 })));
    await expect(restoreWith(a, target, PASSPHRASE)).rejects.toThrow(
      /written by a newer version of Baton \(backup format 2\)/,
    );
  });
});

describe('a backup to one file', () => {
  it('opens again from its bytes', async () => {
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    const before = await plain(await dumpProfile(a.names));
    const file = singleFileTarget();
    await backUpWith(a, file, PASSPHRASE);
    const bytes = file.toBytes();
    expect(new TextDecoder().decode(bytes)).not.toContain(secretsOf('alpha').question);
    wipe();
    const fresh = await browser('a');
    await restoreWith(fresh, singleFileTarget(bytes, 'baton.backup'), PASSPHRASE);
    expect(await plain(await dumpProfile(fresh.names))).toEqual(before);
  });
});
