/**
 * A device's index stays small however many backups it made: each adds a segment of what changed, and past
 * MAX_SEGMENTS the index is written whole once more (the old segments deleted); a restore reads it all.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { backUp } from '../../../src/backup/backup.ts';
import { MAX_SEGMENTS } from '../../../src/backup/manifest.ts';
import { openProfile } from '../../../src/backup/profile.ts';
import { restore } from '../../../src/backup/restore.ts';
import { openSyncState } from '../../../src/backup/sync-state.ts';
import { singleFileTarget } from '../../../src/backup/targets/single-file.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';
import { dumpProfile, namesFor, plain, seedProfile } from './seed.ts';

const PASSPHRASE = 'segments passphrase';

describe("a device's index", () => {
  it(`is written whole again past ${MAX_SEGMENTS} segments, and restores every record`, async () => {
    const names = namesFor('m');
    await seedProfile(names, 'mike');
    const target = singleFileTarget();
    const state = await openSyncState('m-backup');
    const segmentsAfterEach: number[] = [];
    for (let i = 0; i <= MAX_SEGMENTS + 1; i++) {
      const outcomes = await openOutcomeStore(names.learning);
      await outcomes.put({
        runId: `mark-${i}`,
        question: `q${i}`,
        strategy: 'router',
        workerIds: [],
        good: true,
        at: 10_000 + i,
      } as never);
      outcomes.close();
      const profile = await openProfile(names);
      await backUp({ target, state, profile, passphrase: PASSPHRASE });
      profile.close();
      segmentsAfterEach.push((await target.list('s')).length);
    }
    expect(Math.max(...segmentsAfterEach)).toBe(MAX_SEGMENTS);
    expect(segmentsAfterEach.at(-1)).toBeLessThan(3);
    const before = await plain(await dumpProfile(names));

    const bytes = target.toBytes();
    globalThis.indexedDB = new IDBFactory();
    const profile = await openProfile(names);
    const result = await restore({
      target: singleFileTarget(bytes),
      state: await openSyncState('m-backup'),
      profile,
      passphrase: PASSPHRASE,
    });
    profile.close();
    expect(result.problems).toEqual([]);
    expect(await plain(await dumpProfile(names))).toEqual(before);
  });
});
