/**
 * Objects no index names are deleted from the place, and only those: against a real S3-compatible server
 * (s3rver) and a real WebDAV server (webdav-server) on 127.0.0.1, with two browsers sharing one place.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../../src/backup/collect.ts';
import { SEGMENT_PREFIX } from '../../../src/backup/format.ts';
import type { BackupTarget } from '../../../src/backup/targets/target.ts';
import { openThreadStore } from '../../../src/records/thread-store.ts';
import { type Browser, backUpWith, browser, dav, restoreWith, s3, wipe } from './browsers.ts';
import { dumpProfile, namesFor, plain, seedProfile } from './seed.ts';
import { startS3, startWebDav, type TestServer } from './servers.ts';

const PASSPHRASE = 'collect the unnamed';
/** Collect on every backup, and delete what is unnamed at once. */
const AT_ONCE = { graceMs: 0, everyMs: 0 };

let servers: TestServer[] = [];
beforeEach(() => wipe());
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function started(server: Promise<TestServer>): Promise<TestServer> {
  const s = await server;
  servers.push(s);
  return s;
}

async function retitle(b: Browser, title: string, updatedAt: number): Promise<void> {
  const threads = await openThreadStore(b.names.runs);
  const thread = await threads.getThread('alpha-t1');
  if (!thread) throw new Error('no thread');
  await threads.putThread({ ...thread, title, titleEdited: true, updatedAt });
  threads.close();
}

/** The pack that holds `key` in the index `b` last wrote. */
async function packOf(b: Browser, key: string): Promise<string> {
  const entry = (await b.state.published())?.entries.find((e) => e.k === key);
  if (!entry?.o) throw new Error(`${key} is in no pack`);
  return entry.o;
}

describe('collecting objects no index names', () => {
  it('deletes a replaced pack once no device names it, never while another device does', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    const b = await browser('b');
    await seedProfile(a.names, 'alpha');
    const ta = await s3(a, server);
    const tb = await s3(b, server);
    await backUpWith(a, ta, PASSPHRASE, AT_ONCE);
    const first = await packOf(a, 'thread:alpha-t1');

    // a renames the thread: a pack of that record alone; b takes it and backs it up (naming a's pack).
    await retitle(a, 'Renamed once', 5_000);
    await backUpWith(a, ta, undefined, AT_ONCE);
    const renamed = await packOf(a, 'thread:alpha-t1');
    await restoreWith(b, tb, PASSPHRASE);
    await backUpWith(b, tb, undefined, AT_ONCE);
    expect(await packOf(b, 'thread:alpha-t1')).toBe(renamed);

    // a renames again: its index no longer names that pack, b's still does, so it stays.
    await retitle(a, 'Renamed twice', 6_000);
    await backUpWith(a, ta, undefined, AT_ONCE);
    expect(await ta.get(renamed)).toBeDefined();

    // b takes the new title and backs up: no index names the pack now, and it goes; the rest stays.
    await restoreWith(b, tb);
    await backUpWith(b, tb, undefined, AT_ONCE);
    expect(await tb.get(renamed)).toBeUndefined();
    expect(await tb.get(first)).toBeDefined();
    expect(await tb.get(await packOf(a, 'thread:alpha-t1'))).toBeDefined();

    // Nothing named was lost: a fresh browser restores all of a's records.
    const before = await plain(await dumpProfile(a.names));
    wipe();
    const fresh = await browser('a');
    const restored = await restoreWith(fresh, await s3(fresh, server), PASSPHRASE);
    expect(restored.problems).toEqual([]);
    expect(await plain(await dumpProfile(fresh.names))).toEqual(before);
  });

  it('deletes only after the new index is written, waits its grace, and deletes nothing when an index cannot be read', async () => {
    const server = await started(startWebDav());
    const a = await browser('a');
    await seedProfile(a.names, 'alpha');
    const plainTarget = await dav(a, server);
    // Every request the backup makes, in order.
    const log: string[] = [];
    const target: BackupTarget = {
      ...plainTarget,
      put(name, bytes) {
        log.push(`put ${name}`);
        return plainTarget.put(name, bytes);
      },
      delete(name) {
        log.push(`delete ${name}`);
        return plainTarget.delete(name);
      },
    };
    await backUpWith(a, target, PASSPHRASE, AT_ONCE);

    // A backup cut off before its head leaves its pack and its segment unnamed.
    await retitle(a, 'Cut off', 5_000);
    const cut: BackupTarget = {
      ...target,
      put: (name, bytes) =>
        name.startsWith('d') ? Promise.reject(new Error('connection lost')) : target.put(name, bytes),
    };
    await expect(backUpWith(a, cut, undefined, AT_ONCE)).rejects.toThrow('connection lost');
    const leftBehind = (await target.list(SEGMENT_PREFIX)).length;
    expect(leftBehind).toBe(2);

    // With a grace of an hour, the next backup only notes what is unnamed.
    await retitle(a, 'Finished', 6_000);
    log.length = 0;
    await backUpWith(a, target, undefined, { graceMs: 3_600_000, everyMs: 0 });
    expect(log.filter((l) => l.startsWith('delete'))).toEqual([]);
    const waiting = await a.state.collection();
    expect(Object.keys(waiting.unnamed)).toHaveLength(2);

    // A head that cannot be opened (another device's, damaged): nothing is deleted, whatever the time.
    const keys = (await a.state.keys())?.keys;
    if (!keys) throw new Error('no keys');
    await plainTarget.put('d00ffee', new Uint8Array(64));
    const later = Date.now() + 7_200_000;
    const blocked = await collectGarbage(target, keys, a.state, 3_600_000, later);
    expect(blocked.deleted).toEqual([]);
    expect(blocked.skipped?.[0]).toMatch(/failed its authentication check/);
    await plainTarget.delete('d00ffee');

    // Past the grace, still unnamed: deleted. The cut backup's segment and pack go, and only those (the
    // finished backup's segment joined the first one).
    await a.state.setCollection(waiting);
    const collected = await collectGarbage(target, keys, a.state, 3_600_000, later);
    expect(collected.deleted.sort()).toEqual(Object.keys(waiting.unnamed).sort());
    expect(await target.list(SEGMENT_PREFIX)).toHaveLength(leftBehind);

    // In a backup, deletions come only after its head is written (the collection above was dated later).
    await a.state.setCollection(undefined);
    await retitle(a, 'Again', 7_000);
    log.length = 0;
    await backUpWith(a, target, undefined, AT_ONCE);
    const head = (await a.state.published())?.head;
    const headAt = log.indexOf(`put ${head}`);
    expect(headAt).toBeGreaterThan(0);
    expect(log.findIndex((l) => l.startsWith('delete'))).toBeGreaterThan(headAt);

    const before = await plain(await dumpProfile(namesFor('a')));
    wipe();
    const fresh = await browser('a');
    const restored = await restoreWith(fresh, await dav(fresh, server), PASSPHRASE);
    expect(restored.problems).toEqual([]);
    expect(await plain(await dumpProfile(fresh.names))).toEqual(before);
  });

  it('uploads again a record whose pack was collected, rather than naming the pack while it is gone', async () => {
    const server = await started(startS3());
    const a = await browser('a');
    const b = await browser('b');
    await seedProfile(a.names, 'alpha');
    const ta = await s3(a, server);
    const tb = await s3(b, server);
    await backUpWith(a, ta, PASSPHRASE, AT_ONCE);
    await retitle(a, 'Renamed once', 5_000);
    await backUpWith(a, ta, undefined, AT_ONCE);
    const renamed = await packOf(a, 'thread:alpha-t1');
    // b restores that title but backs up nothing yet; a renames again, and no index names the pack now.
    await restoreWith(b, tb, PASSPHRASE);
    await retitle(a, 'Renamed twice', 6_000);
    await backUpWith(a, ta, undefined, AT_ONCE);
    expect(await ta.get(renamed)).toBeUndefined();

    // b's first backup holds its copy of the thread: sent again (a pack is named by its records, so the
    // same name), not named while gone.
    await backUpWith(b, tb, undefined, AT_ONCE);
    expect(await packOf(b, 'thread:alpha-t1')).toBe(renamed);
    expect(await tb.get(renamed)).toBeDefined();
    const c = await browser('c');
    const restored = await restoreWith(c, await s3(c, server), PASSPHRASE);
    expect(restored.problems).toEqual([]);
  });
});
