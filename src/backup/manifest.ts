/**
 * The backup's index: each device writes a head (its list of segments) and segments (the entries each of
 * its backups changed), all sealed. A backup adds one segment of what changed, so the index it uploads
 * grows with the change, not with the backup; past `MAX_SEGMENTS` a device writes its whole index as one
 * segment again. Reading folds a device's segments in order, then merges the devices by key.
 */
import {
  BackupError,
  checkVersion,
  DEVICE_PREFIX,
  type DeviceHead,
  type ManifestEntry,
  type Segment,
} from './format.ts';
import type { BackupKeys } from './keys.ts';
import { openObject, sealJson } from './sealing.ts';
import type { BackupTarget } from './targets/target.ts';

export const MAX_SEGMENTS = 16;

/** An object of the index read and opened, or why it could not be. */
export async function readSealedJson<T>(
  target: BackupTarget,
  keys: BackupKeys,
  name: string,
  what: string,
): Promise<T | undefined> {
  const bytes = await target.get(name);
  if (!bytes) return undefined;
  const opened = await openObject(keys, name, bytes);
  if (!opened) {
    throw new BackupError(
      'failed',
      `${what} (object ${name}) failed its authentication check: it was changed or cut short.`,
    );
  }
  return JSON.parse(new TextDecoder().decode(opened)) as T;
}

export async function writeSealedJson(
  target: BackupTarget,
  keys: BackupKeys,
  name: string,
  value: unknown,
): Promise<number> {
  const sealed = await sealJson(keys, name, value);
  await target.put(name, sealed);
  return sealed.byteLength;
}

/** Later entries of a key replace earlier ones. */
export function fold(
  into: Map<string, ManifestEntry>,
  entries: readonly ManifestEntry[],
): Map<string, ManifestEntry> {
  for (const entry of entries) into.set(entry.k, entry);
  return into;
}

export interface DeviceIndex {
  head: string;
  segments: string[];
  entries: Map<string, ManifestEntry>;
}

/** A device's index from its head; a damaged segment is named in `problems` and its entries left out. */
export async function readDevice(
  target: BackupTarget,
  keys: BackupKeys,
  head: string,
  problems: string[],
): Promise<DeviceIndex | undefined> {
  let value: DeviceHead | undefined;
  try {
    value = await readSealedJson<DeviceHead>(target, keys, head, "A device's index");
  } catch (error) {
    if (!(error instanceof BackupError) || error.problem !== 'failed') throw error;
    problems.push(error.message);
    return undefined;
  }
  if (!value) return undefined;
  checkVersion(value.version, "device's index");
  const entries = new Map<string, ManifestEntry>();
  for (const name of value.segments) {
    try {
      const segment = await readSealedJson<Segment>(target, keys, name, 'A part of the index');
      if (!segment) {
        problems.push(`A part of the index (object ${name}) is missing: the records it listed are left out.`);
        continue;
      }
      checkVersion(segment.version, 'index');
      fold(entries, segment.entries);
    } catch (error) {
      if (!(error instanceof BackupError) || error.problem !== 'failed') throw error;
      problems.push(`${error.message} The records it listed are left out.`);
    }
  }
  return { head, segments: value.segments, entries };
}

/** Every device's index at `target`. */
export async function readAllDevices(
  target: BackupTarget,
  keys: BackupKeys,
  problems: string[],
): Promise<DeviceIndex[]> {
  const heads = await target.list(DEVICE_PREFIX);
  const out: DeviceIndex[] = [];
  for (const head of heads) {
    const device = await readDevice(target, keys, head, problems);
    if (device) out.push(device);
  }
  return out;
}

/** One entry per key over all devices: the latest change wins (a deletion included). */
export function mergeDevices(devices: readonly DeviceIndex[]): Map<string, ManifestEntry> {
  const merged = new Map<string, ManifestEntry>();
  for (const device of devices) {
    for (const entry of device.entries.values()) {
      const seen = merged.get(entry.k);
      if (!seen || entry.t > seen.t) merged.set(entry.k, entry);
    }
  }
  return merged;
}
