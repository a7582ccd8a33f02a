/** The WebCrypto pieces of the vault: AES-GCM with a fresh IV per encryption, PBKDF2-SHA256 derivation. */

export type Bytes = Uint8Array<ArrayBuffer>;

/** OWASP's 2023 figure for PBKDF2-HMAC-SHA256. Production code can raise it, never lower it. */
export const MIN_PBKDF2_ITERATIONS = 600_000;
export const SALT_BYTES = 16;
export const IV_BYTES = 12;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function randomBytes(length: number): Bytes {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** A fresh AES-256-GCM key that can never be exported (nor wrapped): it only encrypts and decrypts. */
export function generateDataKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/**
 * Derives a non-extractable AES-256-GCM key from a passphrase. The passphrase is NFC-normalized first,
 * so the same words typed on different keyboards (composed or decomposed accents) open the vault.
 */
export async function deriveKey(passphrase: string, salt: Bytes, iterations: number): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey(
    'raw',
    encoder.encode(passphrase.normalize('NFC')),
    'PBKDF2',
    false,
    ['deriveKey'],
  );
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export interface Sealed {
  iv: Bytes;
  ciphertext: ArrayBuffer;
}

/** Encrypts with a fresh random 12-byte IV every time; `aad` binds the ciphertext to where it is stored. */
export async function seal(key: CryptoKey, plaintext: string, aad: string): Promise<Sealed> {
  const iv = randomBytes(IV_BYTES);
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(aad) },
    key,
    encoder.encode(plaintext),
  );
  return { iv, ciphertext };
}

/** Decrypts, or returns undefined when the key, the AAD or the bytes do not match (GCM's tag check). */
export async function open(key: CryptoKey, sealed: Sealed, aad: string): Promise<string | undefined> {
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.iv, additionalData: encoder.encode(aad) },
      key,
      sealed.ciphertext,
    );
    return decoder.decode(plaintext);
  } catch {
    return undefined;
  }
}
