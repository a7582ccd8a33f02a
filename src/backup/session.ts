/**
 * The keys for one backup place: kept from an earlier unlock when they still open its header, else
 * derived from the passphrase (and kept). A place with no backup yet gets its header on the first backup.
 */
import { BackupError, HEADER_NAME } from './format.ts';
import { checkKeys, headerBytes, newHeader, readHeader, unlockHeader } from './header.ts';
import type { BackupKeys } from './keys.ts';
import type { SyncState } from './sync-state.ts';
import type { BackupTarget } from './targets/target.ts';

export async function keysFor(
  target: BackupTarget,
  state: SyncState,
  passphrase: string | undefined,
  create: boolean,
): Promise<BackupKeys> {
  const header = await readHeader(target);
  const kept = await state.keys();
  if (!header) {
    if (!create) throw new BackupError('no-backup', `There is no Baton backup at ${target.label}.`);
    if (!passphrase) {
      throw new BackupError(
        'passphrase-needed',
        'Choose a backup passphrase first: it encrypts the backup on this device.',
      );
    }
    const made = await newHeader(passphrase);
    await target.put(HEADER_NAME, headerBytes(made.header));
    await forgetPlace(state);
    await state.setKeys({ keys: made.keys, salt: made.header.salt });
    return made.keys;
  }
  if (kept && kept.salt === header.salt && (await checkKeys(header, kept.keys))) return kept.keys;
  if (!passphrase) {
    throw new BackupError('passphrase-needed', `Enter the passphrase of the backup at ${target.label}.`);
  }
  const keys = await unlockHeader(header, passphrase);
  // Another place (or the same one started again): what this browser knew of the last one does not hold.
  if (kept?.salt !== header.salt) await forgetPlace(state);
  await state.setKeys({ keys, salt: header.salt });
  return keys;
}

async function forgetPlace(state: SyncState): Promise<void> {
  await state.setPublished(undefined);
  await state.setSynced(new Map());
  await state.setCollection(undefined);
}
