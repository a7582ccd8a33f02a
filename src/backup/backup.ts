/**
 * One backup: what changed since this device's last one (by each record's time, else its content hash)
 * is sealed and uploaded in packs, packs the place already holds are skipped, then one segment of the index,
 * then the device's head, last: a backup cut off before its head leaves the previous index whole, and
 * the next one lists what was uploaded and sends only the rest. Then, now and again, objects no device's
 * index names any more are collected (collect.ts).
 */

import { encodePack, encodeRecord } from '../shared/record-bytes.ts';
import { type CollectOptions, collectGarbage, DEFAULT_COLLECT } from './collect.ts';
import {
  BACKUP_FORMAT_VERSION,
  DEVICE_PREFIX,
  type DeviceHead,
  type ManifestEntry,
  OBJECT_PREFIX,
  SEGMENT_PREFIX,
} from './format.ts';
import { contentId, keyedName } from './keys.ts';
import { withBackupLock } from './lock.ts';
import { fold, MAX_SEGMENTS, readSealedJson, writeSealedJson } from './manifest.ts';
import { DELETABLE, kindOf, type LocalUnit, type Profile } from './profile.ts';
import { sealObject } from './sealing.ts';
import { keysFor } from './session.ts';
import type { BackupStatus, SyncState } from './sync-state.ts';
import type { BackupTarget } from './targets/target.ts';

export interface BackupProgress {
  /** Records looked at, of all this browser holds. */
  done: number;
  total: number;
  /** Bytes uploaded so far. */
  bytes: number;
}

export interface BackupRun {
  target: BackupTarget;
  state: SyncState;
  profile: Profile;
  /** Needed for a first backup, or when the keys kept here do not open the place's header. */
  passphrase?: string;
  onProgress?: (progress: BackupProgress) => void;
  /** False for a scheduled backup: when another tab is backing up, it is skipped, not queued. */
  wait?: boolean;
  /** When objects no index names are deleted (collect.ts); DEFAULT_COLLECT unless a test says. */
  collect?: CollectOptions;
}

export interface BackupResult {
  /** Records new, changed or deleted since the last backup. */
  changed: number;
  uploadedObjects: number;
  uploadedBytes: number;
  status: BackupStatus;
}

/** Records read and hashed at a time. */
const PARALLEL = 8;
/** A pack is sent once it holds this many records, or this many bytes (a large file goes nearly alone). */
const PACK_RECORDS = 64;
const PACK_BYTES = 1 << 20;

export function backUp(run: BackupRun): Promise<BackupResult> {
  return withBackupLock(() => backUpHeld(run), run.wait ?? true);
}

async function backUpHeld(run: BackupRun): Promise<BackupResult> {
  const { target, state, profile } = run;
  const keys = await keysFor(target, state, run.passphrase, true);
  const device = await state.deviceId();
  const head = await keyedName(keys, DEVICE_PREFIX, `device:${device}`);

  // What this device published, if the place still holds it as this browser remembers it.
  let base = await state.published();
  if (base && base.head === head) {
    const remote = await readSealedJson<DeviceHead>(target, keys, head, "This device's index").catch(
      () => undefined,
    );
    if (!remote || remote.segments.join() !== base.segments.join()) base = undefined;
  } else base = undefined;
  const known = new Map((base?.entries ?? []).map((e) => [e.k, e]));

  const units = await profile.list();
  // What the place holds: packs a backup cut off uploaded are skipped, and a pack another device wrote is
  // reused only while it is there (one no index named any more may have been collected: collect.ts).
  const present = new Set(await target.list(OBJECT_PREFIX));

  const changes: ManifestEntry[] = [];
  let uploadedObjects = 0;
  let uploadedBytes = 0;
  let done = 0;
  const report = () => run.onProgress?.({ done, total: units.length, bytes: uploadedBytes });
  report();

  // Where each record already is, on this device's index or one it restored from: never sent again.
  const synced = await state.synced();
  const located = new Map<string, { o: string; i: number }>();
  for (const e of [...synced.values(), ...known.values()]) {
    if (e.h && e.o !== undefined && e.i !== undefined) located.set(e.h, { o: e.o, i: e.i });
  }

  /** A record's bytes and hash, when it changed since this device's last index. */
  const prepare = async (unit: LocalUnit) => {
    const prev = known.get(unit.key);
    const same =
      prev && prev.h !== null && (unit.immutable || (unit.time !== undefined && unit.time === prev.t));
    if (same) return undefined;
    const body = await unit.read();
    if (body === undefined) return undefined;
    const bytes = await encodeRecord(body);
    const hash = await contentId(bytes);
    if (prev && prev.h === hash) return undefined;
    return { unit, bytes, hash };
  };

  // Changed records wait in a pack until it is full, then go as one object. A pack's name comes from
  // its records' hashes, so a backup run again after a cut makes the same packs, and skips those there.
  let pack: NonNullable<Awaited<ReturnType<typeof prepare>>>[] = [];
  let packBytes = 0;
  const flush = async () => {
    if (pack.length === 0) return;
    const name = await keyedName(keys, OBJECT_PREFIX, `pack:${pack.map((p) => p.hash).join(',')}`);
    if (!present.has(name)) {
      const sealed = await sealObject(keys, name, encodePack(pack.map((p) => p.bytes)));
      await target.put(name, sealed);
      present.add(name);
      uploadedObjects++;
      uploadedBytes += sealed.byteLength;
    }
    pack.forEach((p, i) => {
      located.set(p.hash, { o: name, i });
      changes.push({
        k: p.unit.key,
        h: p.hash,
        t: p.unit.time ?? Date.now(),
        n: p.bytes.byteLength,
        o: name,
        i,
      });
    });
    pack = [];
    packBytes = 0;
  };
  for (let i = 0; i < units.length; i += PARALLEL) {
    for (const changed of await Promise.all(units.slice(i, i + PARALLEL).map(prepare))) {
      if (!changed) continue;
      const at = located.get(changed.hash);
      if (at && present.has(at.o)) {
        changes.push({
          k: changed.unit.key,
          h: changed.hash,
          t: changed.unit.time ?? Date.now(),
          n: changed.bytes.byteLength,
          ...at,
        });
        continue;
      }
      pack.push(changed);
      packBytes += changed.bytes.byteLength;
      if (pack.length >= PACK_RECORDS || packBytes >= PACK_BYTES) await flush();
    }
    done = Math.min(units.length, i + PARALLEL);
    report();
  }
  await flush();

  // A record this device published, or got from the backup, and no longer has was deleted here: a
  // tombstone says so (a record merely missing from a device's index deletes nothing anywhere).
  const here = new Set(units.map((u) => u.key));
  const now = Date.now();
  const gone = new Set<string>();
  for (const entry of [...known.values(), ...synced.values()]) {
    if (entry.h === null || here.has(entry.k) || gone.has(entry.k)) continue;
    if (known.get(entry.k)?.h === null) continue;
    if (!(DELETABLE as readonly string[]).includes(kindOf(entry.k))) continue;
    gone.add(entry.k);
    changes.push({ k: entry.k, h: null, t: now, n: 0 });
  }

  const entries = fold(new Map(known), changes);
  let segments = base?.segments ?? [];
  const stale: string[] = [];
  if (changes.length > 0 || !base) {
    const fresh = segments.length + 1 > MAX_SEGMENTS || !base;
    const written = fresh ? [...entries.values()] : changes;
    const segment = await keyedName(keys, SEGMENT_PREFIX, `segment:${crypto.randomUUID()}`);
    uploadedBytes += await writeSealedJson(target, keys, segment, {
      version: BACKUP_FORMAT_VERSION,
      entries: written,
    });
    if (fresh) stale.push(...segments);
    segments = fresh ? [segment] : [...segments, segment];
    const value: DeviceHead = { version: BACKUP_FORMAT_VERSION, device, segments, updatedAt: now };
    uploadedBytes += await writeSealedJson(target, keys, head, value);
    for (const name of stale) await target.delete(name).catch(() => undefined);
  }
  await state.setPublished({ head, segments, entries: [...entries.values()] });
  for (const change of changes) synced.set(change.k, change);
  await state.setSynced(synced);
  // Only now that this device's new index is written: objects no device's index names go, after a while.
  const collecting = run.collect ?? DEFAULT_COLLECT;
  if (now - (await state.collection()).at >= collecting.everyMs) {
    // A failed collection changes nothing and does not fail the backup: the next one collects.
    await collectGarbage(target, keys, state, collecting.graceMs, now).catch(() => undefined);
  }

  const holds: Record<string, number> = {};
  let bytes = 0;
  for (const entry of entries.values()) {
    if (entry.h === null) continue;
    const kind = kindOf(entry.k);
    holds[kind] = (holds[kind] ?? 0) + 1;
    bytes += entry.n;
  }
  const status: BackupStatus = { ...(await state.status()), lastBackupAt: Date.now(), holds, bytes };
  delete status.lastError;
  await state.setStatus(status);
  done = units.length;
  report();
  return { changed: changes.length, uploadedObjects, uploadedBytes, status };
}
