/**
 * One object sealed: AES-256-GCM with a fresh random 96-bit IV, and the object's name as additional
 * data, so an object moved or swapped under another name fails its tag as a changed one does. Layout:
 * the IV, then the ciphertext and its 16-byte tag (opened by src/shared/sealed-object.ts).
 */
import { openObject, SEALED_IV_BYTES } from '../shared/sealed-object.ts';
import type { Bytes } from '../vault/crypto.ts';
import { type BackupKeys, randomBytes } from './keys.ts';

export { openObject };

const encoder = new TextEncoder();

export async function sealObject(keys: BackupKeys, name: string, plaintext: Uint8Array): Promise<Bytes> {
  const iv = randomBytes(SEALED_IV_BYTES);
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(name) },
    keys.seal,
    plaintext as Bytes,
  );
  const out = new Uint8Array(SEALED_IV_BYTES + ciphertext.byteLength);
  out.set(iv, 0);
  out.set(new Uint8Array(ciphertext), SEALED_IV_BYTES);
  return out;
}

export async function sealJson(keys: BackupKeys, name: string, value: unknown): Promise<Bytes> {
  return sealObject(keys, name, encoder.encode(JSON.stringify(value)));
}
