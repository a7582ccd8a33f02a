import { describe, expect, it } from 'vitest';
import { attachmentSummary, EXTRACT_TOKENS, extractOf } from '../../../src/attachments/summary.ts';
import { estimateTokens } from '../../../src/shared/token-estimate.ts';
import { csvAttachment, pngAttachment } from '../../fixtures/attachments.ts';

describe('what the conductor is told of a file', () => {
  it('gives a text file its start within the token budget, never the whole file', async () => {
    const csv = await csvAttachment('big.csv', `id,name\n${'7,alpha beta gamma\n'.repeat(20_000)}`);
    const summary = attachmentSummary(csv);
    expect(summary).toMatchObject({ name: 'big.csv', kind: 'csv', size: csv.size });
    expect(summary.extract?.startsWith('id,name 7,alpha beta gamma')).toBe(true);
    expect(estimateTokens(summary.extract ?? '')).toBeLessThanOrEqual(EXTRACT_TOKENS);
    expect(summary.extract?.length).toBeGreaterThan(EXTRACT_TOKENS);
    expect(extractOf('short text')).toBe('short text');
  });

  it('gives an image its size as sent and no extract', async () => {
    const png = await pngAttachment('p.png', 40, 30);
    expect(attachmentSummary(png)).toEqual({
      name: 'p.png',
      kind: 'image',
      size: png.size,
      width: 40,
      height: 30,
    });
  });
});
