/**
 * A restore: every device's index at the place is read and merged by record key (the latest change
 * wins, a deletion included), then each record is compared with this browser's and written where the
 * backup's is the one to keep. Never a silent overwrite: a record changed both here and elsewhere since
 * they last agreed keeps the newer version (by its own time of change), and the restore's notes say
 * which was replaced. The newer wins rather than both being kept because a run is never edited in
 * place (an edit or a regenerate adds a run beside it), so what changes on two devices is a thread's
 * title or branch on screen, a worker's settings or a mark: kept twice they would be two workers of one
 * id or two titles of one thread, which nothing here can show. A deletion comes only as a tombstone a
 * device wrote when the user deleted the record there; a record missing from a backup deletes nothing.
 * Each record is written in its own transaction, so a restore cut off leaves every record whole, and
 * running it again skips what it already wrote.
 */
import { nextTask } from '../shared/next-task.ts';
import { type PackReader, packReader } from '../shared/pack-reader.ts';
import { encodeRecord } from '../shared/record-bytes.ts';
import { BackupError, type ManifestEntry } from './format.ts';
import type { BackupKeys } from './keys.ts';
import { contentId } from './keys.ts';
import { withBackupLock } from './lock.ts';
import { mergeDevices, readAllDevices } from './manifest.ts';
import { kindOf, type LocalUnit, type Profile, restoreOrder } from './profile.ts';
import { threadReader } from './restore-thread.ts';
import { keysFor } from './session.ts';
import type { SyncState } from './sync-state.ts';
import type { BackupTarget } from './targets/target.ts';

export interface RestoreProgress {
  done: number;
  total: number;
}

export interface RestoreRun {
  target: BackupTarget;
  state: SyncState;
  profile: Profile;
  passphrase?: string;
  onProgress?: (progress: RestoreProgress) => void;
}

export interface RestoreResult {
  /** Records written from the backup (new here, or newer there). */
  restored: number;
  /** Records deleted here by a tombstone another device wrote. */
  deleted: number;
  /** Records changed on both sides: which version was kept, in words. */
  notes: string[];
  /** Objects that could not be restored (missing, or failing their authentication check), named. */
  problems: string[];
  /** The kinds of record written or deleted here (`run`, `worker`, `settings`…): what a page shows anew. */
  kinds: string[];
}

/** Records fetched and written at once. */
const PARALLEL = 8;
/**
 * The most work done before the page is let draw and take input: records arrive in packs of up to 64, so
 * without a pause their decoding and writing ran as one task of tens of milliseconds (the goal is
 * no task over 50 ms while restoring; bench p29-restore-main-thread).
 */
const TASK_MS = 10;

export function restore(run: RestoreRun): Promise<RestoreResult> {
  return withBackupLock(() => restoreHeld(run));
}

function when(time: number): string {
  return new Date(time).toISOString().replace('T', ' ').slice(0, 16);
}

function what(key: string): string {
  const colon = key.indexOf(':');
  return `${key.slice(0, colon)} ${key.slice(colon + 1)}`;
}

/** The records are opened and written in the restore's own thread where there are workers (restore-thread.ts). */
function readerFor(keys: BackupKeys, profile: Profile): Promise<PackReader> | PackReader {
  if (typeof Worker !== 'undefined' && profile.databases)
    return threadReader(keys, profile.databases, profile);
  return packReader(keys, profile);
}

async function restoreHeld(run: RestoreRun): Promise<RestoreResult> {
  // A wrong passphrase stops here: nothing read, nothing written.
  const keys = await keysFor(run.target, run.state, run.passphrase, false);
  const reader = await readerFor(keys, run.profile);
  try {
    return await restoreWith(run, keys, reader);
  } finally {
    // A failure of the restore's thread was already thrown above, by name: its end adds nothing.
    await reader.close().catch(() => {});
  }
}

async function restoreWith(run: RestoreRun, keys: BackupKeys, reader: PackReader): Promise<RestoreResult> {
  const { target, state, profile } = run;
  const problems: string[] = [];
  const merged = mergeDevices(await readAllDevices(target, keys, problems));
  const synced = await state.synced();
  const local = new Map((await profile.list()).map((u) => [u.key, u]));
  const result: RestoreResult = { restored: 0, deleted: 0, notes: [], problems, kinds: [] };
  let since = performance.now();
  const pause = async () => {
    if (performance.now() - since < TASK_MS) return;
    await nextTask();
    since = performance.now();
  };
  const kinds = new Set<string>();

  /** This browser's version's hash: the synced one when its time says it is unchanged since. */
  const localHash = async (unit: LocalUnit, base: ManifestEntry | undefined) => {
    if (base?.h && (unit.immutable || (unit.time !== undefined && unit.time === base.t))) return base.h;
    const body = await unit.read();
    return body === undefined ? undefined : contentId(await encodeRecord(body));
  };

  // Each pack is fetched and opened once, and let go once every record of it was looked at.
  const packs = new Map<string, Promise<string | undefined>>();
  const uses = new Map<string, number>();
  for (const e of merged.values()) if (e.o) uses.set(e.o, (uses.get(e.o) ?? 0) + 1);
  const openPack = (name: string) => {
    let opening = packs.get(name);
    if (!opening) {
      opening = (async () => {
        const sealed = await target.get(name);
        if (!sealed) return 'is missing';
        return reader.open(name, sealed);
      })();
      packs.set(name, opening);
    }
    return opening;
  };
  const lookedAt = (entry: ManifestEntry) => {
    if (!entry.o) return;
    const left = (uses.get(entry.o) ?? 1) - 1;
    uses.set(entry.o, left);
    if (left === 0) {
      packs.delete(entry.o);
      // A thread that died says so on the next record; letting a pack go needs no answer.
      reader.release(entry.o).catch(() => {});
    }
  };

  const take = async (entry: ManifestEntry & { h: string }) => {
    const name = entry.o ?? '(none)';
    const failed = entry.o ? await openPack(entry.o) : 'is not named in the index';
    if (failed !== undefined) {
      problems.push(`The backup of ${what(entry.k)} (object ${name}) ${failed}: it was not restored.`);
      return false;
    }
    await pause();
    const written = await reader.write(entry);
    if ('failed' in written) {
      if (written.failed === 'missing') {
        problems.push(
          `The backup of ${what(entry.k)} (object ${name}) does not hold it: it was not restored.`,
        );
      } else if (written.failed === 'unreadable') {
        problems.push(
          `The backup of ${what(entry.k)} (object ${name}) could not be read (${written.reason}).`,
        );
      } else if (written.failed === 'full') {
        // A full disk stops the restore (every record after would fail too); what is written stays whole.
        throw new BackupError(
          'full',
          "This browser's storage for Baton is full: the restore stopped, and what it wrote is kept. Free some (old runs in History, the cached model in Settings), then restore again to go on.",
        );
      } else {
        problems.push(`${what(entry.k)} could not be written here (${written.reason}): it was not restored.`);
      }
      return false;
    }
    synced.set(entry.k, entry);
    result.restored++;
    kinds.add(kindOf(entry.k));
    return true;
  };

  const keysInOrder = [...merged.keys()].sort(restoreOrder);
  let done = 0;
  let savedAt = 0;
  run.onProgress?.({ done, total: keysInOrder.length });
  // A few records at a time (a bucket answers each in tens of milliseconds), never two kinds in one
  // batch: a run's files are written before the run.
  for (let i = 0; i < keysInOrder.length; ) {
    const kind = kindOf(keysInOrder[i] as string);
    let end = i + 1;
    while (end < keysInOrder.length && end - i < PARALLEL && kindOf(keysInOrder[end] as string) === kind)
      end++;
    await Promise.all(
      keysInOrder.slice(i, end).map(async (key) => {
        const entry = merged.get(key) as ManifestEntry;
        await step(entry, local.get(key), synced.get(key));
        lookedAt(entry);
      }),
    );
    done = end;
    i = end;
    run.onProgress?.({ done, total: keysInOrder.length });
    // Written every so often, so a restore cut off does not compare from scratch.
    if (done - savedAt >= 200) {
      savedAt = done;
      await state.setSynced(synced);
    }
  }
  await state.setSynced(synced);
  await state.setStatus({
    ...(await state.status()),
    lastRestoreAt: Date.now(),
    notes: [...result.notes, ...result.problems],
  });
  result.kinds = [...kinds];
  return result;

  async function step(entry: ManifestEntry, unit: LocalUnit | undefined, base: ManifestEntry | undefined) {
    await pause();
    const hereTime = unit?.time ?? base?.t ?? 0;
    if (entry.h === null) {
      if (!unit) {
        synced.set(entry.k, entry);
        return;
      }
      if (hereTime > entry.t) {
        result.notes.push(
          `${what(entry.k)} was deleted on another device (${when(entry.t)}) but changed here later: kept here.`,
        );
        return;
      }
      await profile.remove(entry.k);
      synced.set(entry.k, entry);
      result.deleted++;
      kinds.add(kindOf(entry.k));
      return;
    }
    const remote = entry as ManifestEntry & { h: string };
    if (!unit) {
      // Deleted here since the last backup: the deletion wins unless the record changed elsewhere since.
      if (base && base.h !== null && remote.t <= base.t) return;
      await take(remote);
      return;
    }
    const hash = await localHash(unit, base);
    if (hash === remote.h) {
      synced.set(entry.k, entry);
      return;
    }
    const changedHere = !base || base.h !== hash;
    if (!changedHere) {
      await take(remote);
      return;
    }
    if (remote.t > hereTime) {
      if (await take(remote)) {
        result.notes.push(
          `${what(entry.k)} was changed here and on another device: the other device's version (${when(remote.t)}) is newer and was kept; this browser's (${when(hereTime)}) was replaced.`,
        );
      }
    } else {
      result.notes.push(
        `${what(entry.k)} was changed here and on another device: this browser's version (${when(hereTime)}) is newer and was kept; it goes into the next backup.`,
      );
    }
  }
}
