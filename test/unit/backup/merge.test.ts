/**
 * The merge rule, on one file's backup (the same code as every place): a record changed on two devices
 * keeps the newer version with a note naming it; one changed only on the other device is taken without a
 * note; two tabs back up one at a time.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { backUp } from '../../../src/backup/backup.ts';
import { withBackupLock } from '../../../src/backup/lock.ts';
import { openProfile } from '../../../src/backup/profile.ts';
import { restore } from '../../../src/backup/restore.ts';
import { openSyncState } from '../../../src/backup/sync-state.ts';
import { singleFileTarget } from '../../../src/backup/targets/single-file.ts';
import { openThreadStore } from '../../../src/records/thread-store.ts';
import { namesFor, seedProfile } from './seed.ts';

const PASSPHRASE = 'one passphrase for both devices';

async function device(name: string) {
  const state = await openSyncState(`${name}-backup`);
  const names = namesFor(name);
  return { state, names };
}

type Device = Awaited<ReturnType<typeof device>>;

async function sync(d: Device, target: ReturnType<typeof singleFileTarget>, action: 'backup' | 'restore') {
  const profile = await openProfile(d.names);
  try {
    const run = { target, state: d.state, profile, passphrase: PASSPHRASE };
    return action === 'backup' ? await backUp(run) : await restore(run);
  } finally {
    profile.close();
  }
}

async function retitle(d: Device, title: string, updatedAt: number) {
  const threads = await openThreadStore(d.names.runs);
  const thread = await threads.getThread('alpha-t1');
  if (!thread) throw new Error('no thread');
  await threads.putThread({ ...thread, title, titleEdited: true, updatedAt });
  threads.close();
}

async function titleOf(d: Device) {
  const threads = await openThreadStore(d.names.runs);
  const thread = await threads.getThread('alpha-t1');
  threads.close();
  return thread?.title;
}

describe('merging two devices', () => {
  it('keeps the newer of a record changed on both, with a note; takes one changed only elsewhere', async () => {
    const target = singleFileTarget();
    const a = await device('a');
    const b = await device('b');
    await seedProfile(a.names, 'alpha');
    await sync(a, target, 'backup');
    await sync(b, target, 'restore');

    // Only a renames: b takes it, no note.
    await retitle(a, 'Renamed on a', 5_000);
    await sync(a, target, 'backup');
    const quiet = await sync(b, target, 'restore');
    expect('notes' in quiet && quiet.notes).toEqual([]);
    expect(await titleOf(b)).toBe('Renamed on a');
    await sync(b, target, 'backup');
    await sync(a, target, 'restore');

    // Both rename; a's is later: b's copy is replaced by a's, and the note says so.
    await retitle(b, 'Renamed on b', 6_000);
    await retitle(a, 'Renamed on a again', 7_000);
    await sync(a, target, 'backup');
    const merged = await sync(b, target, 'restore');
    expect('notes' in merged && merged.notes).toEqual([
      expect.stringMatching(
        /^thread alpha-t1 was changed here and on another device: the other device's version .* is newer and was kept; this browser's .* was replaced\.$/,
      ),
    ]);
    expect(await titleOf(b)).toBe('Renamed on a again');
  });

  it('lets one backup run at a time', async () => {
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name} end`);
    };
    await Promise.all([withBackupLock(slow('one')), withBackupLock(slow('two'))]);
    expect(order).toEqual(['one start', 'one end', 'two start', 'two end']);
  });
});
