import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../src/shared/format-bytes.ts';

describe('formatBytes: one unit for every size Baton shows', () => {
  it('counts in powers of 1024 and names them KB, MB and GB', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('2 KB');
    expect(formatBytes(64 * 2 ** 20)).toBe('64.0 MB');
    expect(formatBytes(2 ** 30)).toBe('1.00 GB');
    expect(formatBytes(4327.71 * 2 ** 20)).toBe('4.23 GB');
  });

  it('shows a dash for what is not a size', () => {
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatBytes(-1)).toBe('—');
  });
});
