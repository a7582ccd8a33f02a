import { describe, expect, it } from 'vitest';
import { contentHash } from '../../../src/attachments/hash.ts';
import { decodeText, NOT_UTF8_NOTE } from '../../../src/attachments/text.ts';

describe('decodeText', () => {
  it('reads UTF-8, dropping a byte-order mark, with no note', () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('naïve, café, 日本')]);
    expect(decodeText(bytes)).toEqual({ text: 'naïve, café, 日本', encoding: 'utf-8' });
  });

  it('reads a file that is not UTF-8 as windows-1252, and says so', () => {
    // "café;5" as Excel on Windows writes it: é = 0xE9, not valid UTF-8 here. (Node decodes windows-1252
    // as Latin-1, so 0x80 is not "€" here as it is in a browser: attachments-files.spec.ts checks that one.)
    const bytes = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x3b, 0x35]);
    const decoded = decodeText(bytes);
    expect(decoded).toEqual({ text: 'café;5', encoding: 'windows-1252', note: NOT_UTF8_NOTE });
    expect(decoded.note).toBe('not UTF-8: read as windows-1252');
  });

  it('reads UTF-16 by its byte-order mark, either way round', () => {
    const le = Uint8Array.from([0xff, 0xfe, ...Buffer.from('a;b', 'utf16le')]);
    expect(decodeText(le)).toMatchObject({ text: 'a;b', encoding: 'utf-16le' });
    const be = Uint8Array.from([0xfe, 0xff, ...Buffer.from('a;b', 'utf16le').swap16()]);
    expect(decodeText(be)).toMatchObject({ text: 'a;b', encoding: 'utf-16be' });
  });
});

describe('contentHash', () => {
  it('is the SHA-256 of the bytes in hex (FIPS 180-2 test vector "abc")', async () => {
    expect(await contentHash(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('differs for different bytes, and is the same for the same bytes at another offset', async () => {
    const buffer = new TextEncoder().encode('xxabc');
    expect(await contentHash(buffer.subarray(2))).toBe(await contentHash(new TextEncoder().encode('abc')));
    expect(await contentHash(new TextEncoder().encode('abd'))).not.toBe(
      await contentHash(new TextEncoder().encode('abc')),
    );
  });
});
