/**
 * The backup's layout on the user's storage, and its errors. Every object is sealed (sealing.ts) except
 * the header, which holds what a passphrase needs to open the rest: the format version, the KDF and its
 * salt, and a sealed check value (so a wrong passphrase is told apart from a damaged object). Names are
 * flat, so a folder, a bucket prefix and a WebDAV collection hold them alike:
 *
 * - `baton-backup.json`: the header (public).
 * - `d<hex>`: a device's head (HMAC of its random device id): the list of its manifest segments.
 * - `s<hex>`: a manifest segment (HMAC of a random id): the entries one backup added or changed.
 * - `o<hex>`: a pack of records (HMAC of their content hashes): immutable; a record already in one (on
 *   any device's index) is never sent again, and two devices holding the same record store it once.
 */

/** The layout this Baton writes and the newest it reads. A backup of a newer one is refused by name. */
export const BACKUP_FORMAT_VERSION = 1;

export const HEADER_NAME = 'baton-backup.json';
export const DEVICE_PREFIX = 'd';
export const SEGMENT_PREFIX = 's';
export const OBJECT_PREFIX = 'o';

/** The public header: nothing in it says what the backup holds. */
export interface BackupHeader {
  format: 'baton-backup';
  version: number;
  kdf: 'PBKDF2-SHA-256';
  iterations: number;
  /** Base64. */
  salt: string;
  /** Base64 of a sealed known text: opens only with the right passphrase. */
  check: string;
  createdAt: number;
}

/**
 * One record of the backup as a manifest lists it: `k` the record's key (kind and id), `h` its content
 * hash (hex; null for a tombstone: the user deleted it), `t` when it last changed (its `updatedAt`, or the
 * deletion's time), `n` its size in bytes, and where it is: `o` the pack object, `i` its place in it.
 */
export interface ManifestEntry {
  k: string;
  h: string | null;
  t: number;
  n: number;
  o?: string;
  i?: number;
}

export interface DeviceHead {
  version: number;
  device: string;
  /** Oldest first; later segments' entries replace earlier ones of the same key. */
  segments: string[];
  updatedAt: number;
}

export interface Segment {
  version: number;
  entries: ManifestEntry[];
}

export type BackupProblem =
  | 'wrong-passphrase'
  | 'passphrase-needed'
  | 'newer-version'
  | 'not-a-backup'
  | 'no-backup'
  | 'credentials'
  | 'cors'
  | 'full'
  | 'unreachable'
  | 'busy'
  | 'failed';

/** Why a backup or restore stopped, in words for the user; nothing was changed unless it says so. */
export class BackupError extends Error {
  override name = 'BackupError';
  constructor(
    readonly problem: BackupProblem,
    message: string,
    /** Shown under the message: the configuration that lets this page reach a bucket or server (CORS). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A newer Baton wrote this: refused by name, before anything is read or changed. */
export function checkVersion(version: unknown, what: string): void {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new BackupError('not-a-backup', `The ${what} is not a Baton backup's (no format version).`);
  }
  if (version > BACKUP_FORMAT_VERSION) {
    throw new BackupError(
      'newer-version',
      `This backup was written by a newer version of Baton (backup format ${version}); this Baton reads format ${BACKUP_FORMAT_VERSION} and older. Update Baton, then restore.`,
    );
  }
}
