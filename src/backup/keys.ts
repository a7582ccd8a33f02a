/**
 * The backup's keys, from its passphrase: PBKDF2-SHA-256 at 600,000 iterations (OWASP's 2023 figure,
 * the vault's own: src/vault/crypto.ts) over a random salt kept in the public header, then HKDF splits
 * the result into two keys that never leave WebCrypto: one seals objects (AES-256-GCM), one names them
 * (HMAC-SHA-256), so a name says nothing of what it holds and cannot be guessed from a record.
 */
import { contentHash } from '../attachments/hash.ts';
import { type Bytes, MIN_PBKDF2_ITERATIONS, randomBytes, SALT_BYTES } from '../vault/crypto.ts';
import { BackupError } from './format.ts';

export interface BackupKeys {
  seal: CryptoKey;
  names: CryptoKey;
}

export { MIN_PBKDF2_ITERATIONS, randomBytes, SALT_BYTES };

const encoder = new TextEncoder();

/** Both keys from a passphrase (NFC-normalized, as the vault does) and the header's salt. */
export async function deriveBackupKeys(
  passphrase: string,
  salt: Bytes,
  iterations: number,
): Promise<BackupKeys> {
  if (iterations < MIN_PBKDF2_ITERATIONS) {
    throw new BackupError(
      'not-a-backup',
      `The backup's header asks for ${iterations} PBKDF2 iterations, fewer than the ${MIN_PBKDF2_ITERATIONS} Baton writes: it was not written by Baton, so it is not opened.`,
    );
  }
  const material = await crypto.subtle.importKey(
    'raw',
    encoder.encode(passphrase.normalize('NFC')),
    'PBKDF2',
    false,
    ['deriveBits'],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    material,
    256,
  );
  const master = await crypto.subtle.importKey('raw', bits, 'HKDF', false, ['deriveKey']);
  const hkdf = (info: string) => ({
    name: 'HKDF',
    hash: 'SHA-256',
    salt: new Uint8Array(0),
    info: encoder.encode(info),
  });
  const [seal, names] = await Promise.all([
    crypto.subtle.deriveKey(hkdf('baton-backup seal'), master, { name: 'AES-GCM', length: 256 }, false, [
      'encrypt',
      'decrypt',
    ]),
    crypto.subtle.deriveKey(
      hkdf('baton-backup names'),
      master,
      { name: 'HMAC', hash: 'SHA-256', length: 256 },
      false,
      ['sign'],
    ),
  ]);
  return { seal, names };
}

/** The hex HMAC of `text` under the naming key: a name that reveals nothing. */
export async function keyedName(keys: BackupKeys, prefix: string, text: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', keys.names, encoder.encode(text)));
  return prefix + Array.from(mac.subarray(0, 20), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A record's content id: the SHA-256 of its plaintext (hex). */
export function contentId(plaintext: Uint8Array): Promise<string> {
  return contentHash(plaintext);
}
