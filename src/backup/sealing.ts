/**
 * One object sealed: AES-256-GCM with a fresh random 96-bit IV, and the object's name as additional
 * data, so an object moved or swapped under another name fails its tag as a changed one does. Layout:
 * the IV, then the ciphertext and its 16-byte tag.
 */
import type { Bytes } from '../vault/crypto.ts';
import { type BackupKeys, IV_BYTES, randomBytes } from './keys.ts';

const encoder = new TextEncoder();

export async function sealObject(keys: BackupKeys, name: string, plaintext: Uint8Array): Promise<Bytes> {
  const iv = randomBytes(IV_BYTES);
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(name) },
    keys.seal,
    plaintext as Bytes,
  );
  const out = new Uint8Array(IV_BYTES + ciphertext.byteLength);
  out.set(iv, 0);
  out.set(new Uint8Array(ciphertext), IV_BYTES);
  return out;
}

/** The plaintext, or undefined when the tag does not match: another key, another name, changed or cut bytes. */
export async function openObject(
  keys: BackupKeys,
  name: string,
  sealed: Uint8Array,
): Promise<Bytes | undefined> {
  if (sealed.byteLength < IV_BYTES + 16) return undefined;
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.subarray(0, IV_BYTES) as Bytes, additionalData: encoder.encode(name) },
      keys.seal,
      sealed.subarray(IV_BYTES) as Bytes,
    );
    return new Uint8Array(plaintext);
  } catch {
    return undefined;
  }
}

export async function sealJson(keys: BackupKeys, name: string, value: unknown): Promise<Bytes> {
  return sealObject(keys, name, encoder.encode(JSON.stringify(value)));
}
