/**
 * Objects no index names any more are deleted from the place: a pack whose every record was replaced or
 * deleted on every device, a segment of an index written whole again, a segment a backup cut off before
 * its head left behind. Safe against the other devices, which this browser cannot lock out of a bucket:
 *
 * - It runs after this device's new head is written, and reads every device's index first: an object
 *   any of them names is kept. When an index cannot be read whole (a damaged head or segment, objects
 *   under another passphrase), nothing is deleted, since what it names is unknown.
 * - An object is deleted only once it has been unnamed for `graceMs` (a day by default), on a later
 *   collection that finds it still unnamed: another device's backup under way uploads its packs and
 *   segment before its head, and may reuse a pack it saw, so an object new or in use there is unnamed
 *   for as long as that backup takes. A backup reuses another device's pack only when the place lists
 *   it (backup.ts), so a pack deleted is uploaded again rather than named while gone.
 */
import { OBJECT_PREFIX, SEGMENT_PREFIX } from './format.ts';
import type { BackupKeys } from './keys.ts';
import { readAllDevices } from './manifest.ts';
import type { SyncState } from './sync-state.ts';
import type { BackupTarget } from './targets/target.ts';

export interface CollectOptions {
  /** How long an object stays unnamed before it is deleted. */
  graceMs: number;
  /** How often a backup collects (each reads every device's index). */
  everyMs: number;
}

export const DEFAULT_COLLECT: CollectOptions = { graceMs: 24 * 3_600_000, everyMs: 3_600_000 };

export interface Collected {
  deleted: string[];
  /** Objects unnamed but not for long enough yet. */
  waiting: number;
  /** Why nothing was deleted this time (an index that could not be read whole). */
  skipped?: string[];
}

export async function collectGarbage(
  target: BackupTarget,
  keys: BackupKeys,
  state: SyncState,
  graceMs: number,
  now = Date.now(),
): Promise<Collected> {
  const problems: string[] = [];
  const devices = await readAllDevices(target, keys, problems);
  if (problems.length > 0) {
    await state.setCollection({ at: now, unnamed: {} });
    return { deleted: [], waiting: 0, skipped: problems };
  }
  const named = new Set<string>();
  for (const device of devices) {
    for (const segment of device.segments) named.add(segment);
    for (const entry of device.entries.values()) if (entry.o) named.add(entry.o);
  }
  const stored = [...(await target.list(OBJECT_PREFIX)), ...(await target.list(SEGMENT_PREFIX))];
  const seen = (await state.collection()).unnamed;
  const unnamed: Record<string, number> = {};
  const deleted: string[] = [];
  for (const name of stored) {
    if (named.has(name)) continue;
    const since = seen[name] ?? now;
    if (now - since >= graceMs) {
      await target.delete(name);
      deleted.push(name);
    } else unnamed[name] = since;
  }
  await state.setCollection({ at: now, unnamed });
  return { deleted, waiting: Object.keys(unnamed).length };
}
