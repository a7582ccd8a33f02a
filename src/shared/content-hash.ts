/** The SHA-256 of bytes in hex: an attachment's id (the same file attached twice is stored once), a backed-up record's content id. */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  // Web Crypto hashes off the page's main thread, however large the file.
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
