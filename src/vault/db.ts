import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Bytes, Sealed } from './crypto.ts';

/** One saved key. `last4` is the only value derived from the plaintext; the rest is ciphertext or public. */
export interface KeyRecord {
  id: string;
  providerId: string;
  /** The provider origin the key is bound to (`new URL(x).origin`), e.g. `https://api.openai.com`. */
  origin: string;
  label?: string;
  /** Last four characters when the key has at least 12, else `••••`. */
  last4: string;
  createdAt: number;
  /** AES-GCM nonce, fresh for every encryption. */
  iv: Bytes;
  /** AES-GCM output (ciphertext and tag); the AAD is `recordAad(id, providerId, origin)`. */
  ciphertext: ArrayBuffer;
}

export interface PassphraseKdf {
  name: 'PBKDF2';
  hash: 'SHA-256';
  /** Stored with the salt so a later version can raise it (unlock re-derives with the higher count). */
  iterations: number;
  salt: Bytes;
}

/**
 * What encrypts the records. `id` changes on every re-encryption, so a tab holding an older key notices.
 * - `device`: a non-extractable AES-GCM CryptoKey stored right here (protects against casual reads of the
 *   database files and exports, not against someone who can run code in this origin).
 * - `passphrase`: no key is stored at all; the key is derived from the passphrase each time the vault is
 *   unlocked, and `verifier` (a known text encrypted under it) tells a wrong passphrase apart.
 */
export type Keyring =
  | { id: string; mode: 'device'; key: CryptoKey }
  | { id: string; mode: 'passphrase'; kdf: PassphraseKdf; verifier: Sealed };

export interface VaultSchema extends DBSchema {
  keys: { key: string; value: KeyRecord; indexes: { 'by-provider': string } };
  meta: { key: 'keyring'; value: Keyring };
}

export type VaultDb = IDBPDatabase<VaultSchema>;

export function openVaultDb(name: string, onClosed: (db: VaultDb) => void): Promise<VaultDb> {
  let db: VaultDb | undefined;
  const opening = openDB<VaultSchema>(name, 1, {
    upgrade(database) {
      const keys = database.createObjectStore('keys', { keyPath: 'id' });
      keys.createIndex('by-provider', 'providerId');
      database.createObjectStore('meta');
    },
    // Another tab (or forgetEverything) wants to delete or upgrade the database: step aside.
    blocking() {
      if (!db) return;
      db.close();
      onClosed(db);
    },
    terminated() {
      if (db) onClosed(db);
    },
  });
  return opening.then((opened) => {
    db = opened;
    return opened;
  });
}

export function recordAad(id: string, providerId: string, origin: string): string {
  return JSON.stringify(['baton-vault/key/v1', id, providerId, origin]);
}

export function verifierAad(keyringId: string): string {
  return JSON.stringify(['baton-vault/verifier/v1', keyringId]);
}

export const VERIFIER_TEXT = 'baton-vault verifier v1';
