/**
 * The backup's public header: written once, by the first backup to a place; read before anything else,
 * so a wrong passphrase or a newer format is refused before any record is read or written here.
 */

import { bytesOfBase64 } from '../attachments/export.ts';
import { base64Of } from '../attachments/parts.ts';
import {
  BACKUP_FORMAT_VERSION,
  BackupError,
  type BackupHeader,
  checkVersion,
  HEADER_NAME,
} from './format.ts';
import { type BackupKeys, deriveBackupKeys, MIN_PBKDF2_ITERATIONS, randomBytes, SALT_BYTES } from './keys.ts';
import { openObject, sealObject } from './sealing.ts';
import type { BackupTarget } from './targets/target.ts';

/** Sealed in the header: only the right passphrase opens it. */
const CHECK_TEXT = 'baton-backup passphrase check';
const CHECK_NAME = `${HEADER_NAME}#check`;

export async function newHeader(passphrase: string): Promise<{ header: BackupHeader; keys: BackupKeys }> {
  const salt = randomBytes(SALT_BYTES);
  const keys = await deriveBackupKeys(passphrase, salt, MIN_PBKDF2_ITERATIONS);
  const check = await sealObject(keys, CHECK_NAME, new TextEncoder().encode(CHECK_TEXT));
  const header: BackupHeader = {
    format: 'baton-backup',
    version: BACKUP_FORMAT_VERSION,
    kdf: 'PBKDF2-SHA-256',
    iterations: MIN_PBKDF2_ITERATIONS,
    salt: base64Of(salt),
    check: base64Of(check),
    createdAt: Date.now(),
  };
  return { header, keys };
}

/** The header at `target`, checked; undefined when there is none (nothing was backed up there yet). */
export async function readHeader(target: BackupTarget): Promise<BackupHeader | undefined> {
  const bytes = await target.get(HEADER_NAME);
  if (!bytes) return undefined;
  let header: Partial<BackupHeader>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes)) as Partial<BackupHeader>;
  } catch {
    throw new BackupError(
      'not-a-backup',
      `${HEADER_NAME} at ${target.label} is not a Baton backup's header.`,
    );
  }
  if (header.format !== 'baton-backup') {
    throw new BackupError(
      'not-a-backup',
      `${HEADER_NAME} at ${target.label} is not a Baton backup's header.`,
    );
  }
  checkVersion(header.version, 'header');
  if (
    typeof header.salt !== 'string' ||
    typeof header.check !== 'string' ||
    typeof header.iterations !== 'number'
  ) {
    throw new BackupError('not-a-backup', `The backup header at ${target.label} is incomplete.`);
  }
  return header as BackupHeader;
}

/** The keys `passphrase` gives for `header`, or a wrong-passphrase error (nothing was read or changed). */
export async function unlockHeader(header: BackupHeader, passphrase: string): Promise<BackupKeys> {
  const keys = await deriveBackupKeys(passphrase, bytesOfBase64(header.salt), header.iterations);
  if (!(await checkKeys(header, keys))) {
    throw new BackupError(
      'wrong-passphrase',
      'The backup passphrase is wrong: it does not open this backup. Nothing was read or changed.',
    );
  }
  return keys;
}

/** Whether `keys` (kept from an earlier unlock) open this header: false when another passphrase wrote it. */
export async function checkKeys(header: BackupHeader, keys: BackupKeys): Promise<boolean> {
  return (await openObject(keys, CHECK_NAME, bytesOfBase64(header.check))) !== undefined;
}

export function headerBytes(header: BackupHeader): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(header, null, 2));
}
