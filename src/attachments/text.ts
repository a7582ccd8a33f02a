/**
 * A text file's bytes as text. UTF-8 (a byte-order mark dropped) is read strictly, so a file that is not
 * UTF-8 is noticed instead of being sent with replacement characters. A UTF-16 file says so with its
 * byte-order mark. Any other file is read as windows-1252, and the chip says so: that is what legacy
 * Windows tools (Excel's "CSV" among them) write, every byte has a character in it, and refusing the file
 * would leave the user nothing better to do than convert it by hand. Binary files never get here
 * (kind.ts refuses them by their NUL bytes).
 */
import type { TextEncodingName } from './types.ts';

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** For the chip, when the text was not UTF-8. */
  note?: string;
}

export const NOT_UTF8_NOTE = 'not UTF-8: read as windows-1252';

export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'utf-16le', note: 'read as UTF-16' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes), encoding: 'utf-16be', note: 'read as UTF-16' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return {
      text: new TextDecoder('windows-1252').decode(bytes),
      encoding: 'windows-1252',
      note: NOT_UTF8_NOTE,
    };
  }
}
