import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WHOLE_FILE_TOKENS,
  isLong,
  readWholeFileTokens,
} from '../../../src/attachments/whole-or-passages.ts';
import { csvAttachment, pngAttachment } from '../../fixtures/attachments.ts';

describe('whole or passages, when nobody chose', () => {
  it('calls a file long past the size (about 4 characters a token), never an image, never with "any size"', async () => {
    const short = await csvAttachment('a.csv', 'x'.repeat(DEFAULT_WHOLE_FILE_TOKENS * 4));
    const long = await csvAttachment('b.csv', 'x'.repeat(DEFAULT_WHOLE_FILE_TOKENS * 4 + 4));
    expect(isLong(short)).toBe(false);
    expect(isLong(long)).toBe(true);
    expect(isLong(long, null)).toBe(false);
    expect(isLong(await pngAttachment('p.png'), 1)).toBe(false);
  });

  it('reads the stored setting, and the default from anything it cannot read', () => {
    expect(readWholeFileTokens('32000')).toBe(32_000);
    expect(readWholeFileTokens('null')).toBeNull();
    for (const raw of [null, '', '-5', '1.5', 'lots'])
      expect(readWholeFileTokens(raw)).toBe(DEFAULT_WHOLE_FILE_TOKENS);
  });
});
