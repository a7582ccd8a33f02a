/**
 * A backup's sealed object opened: AES-256-GCM with the object's name as additional data, so an object
 * moved or swapped under another name fails its tag as a changed one does. Layout: a 96-bit IV, then the
 * ciphertext and its 16-byte tag. Here because both the page (indexes, header) and the restore's thread
 * (packs of records) open them; src/backup/sealing.ts seals them.
 */

export const SEALED_IV_BYTES = 12;
const TAG_BYTES = 16;

const encoder = new TextEncoder();

/** The plaintext, or undefined when the tag does not match: another key, another name, changed or cut bytes. */
export async function openObject(
  keys: { seal: CryptoKey },
  name: string,
  sealed: Uint8Array,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (sealed.byteLength < SEALED_IV_BYTES + TAG_BYTES) return undefined;
  try {
    const plaintext = await crypto.subtle.decrypt(
      {
        name: 'AES-GCM',
        iv: sealed.subarray(0, SEALED_IV_BYTES) as Uint8Array<ArrayBuffer>,
        additionalData: encoder.encode(name),
      },
      keys.seal,
      sealed.subarray(SEALED_IV_BYTES) as Uint8Array<ArrayBuffer>,
    );
    return new Uint8Array(plaintext);
  } catch {
    return undefined;
  }
}
