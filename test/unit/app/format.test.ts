import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDuration, formatFixed, formatTime } from '../../../src/app/format.ts';

afterEach(() => vi.restoreAllMocks());

describe('display formatters', () => {
  it('formats a time like the locale does, with one formatter for every row (History at scale)', () => {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    };
    const expected = new Intl.DateTimeFormat(undefined, options).format(1_750_000_000_000);
    // A fresh toLocaleString per row rebuilt the locale data every time: 10,000 rows cost seconds.
    const perCall = vi.spyOn(Date.prototype, 'toLocaleString');
    for (let i = 0; i < 100; i++) formatTime(1_750_000_000_000 + i);
    expect(formatTime(1_750_000_000_000)).toBe(expected);
    expect(perCall).not.toHaveBeenCalled();
  });

  it('shows a dash for a time that is not a number instead of "Invalid Date"', () => {
    expect(formatTime(Number.NaN)).toBe('—');
  });

  it('keeps the other formats', () => {
    expect(formatDuration(1500)).toBe('1.5 s');
  });

  it('never writes "-0.00": a value that rounds to zero reads as zero', () => {
    expect(formatFixed(-0.000_05, 2)).toBe('0.00');
    expect(formatFixed(-0.004, 2)).toBe('0.00');
    expect(formatFixed(-0.006, 2)).toBe('-0.01');
    expect(formatFixed(0.55, 2)).toBe('0.55');
    expect(formatFixed(-0.4, 0)).toBe('0');
  });

  it('rounds a duration before splitting it into units: never "1 min 60 s" or "60 s"', () => {
    expect(formatDuration(119_600)).toBe('2 min');
    expect(formatDuration(59_600)).toBe('1 min');
    expect(formatDuration(9_960)).toBe('10 s');
    expect(formatDuration(999.6)).toBe('1.0 s');
    expect(formatDuration(3_599_600)).toBe('1 h');
    expect(formatDuration(7_170_000)).toBe('2 h');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(3_780_000)).toBe('1 h 3 min');
    expect(formatDuration(850)).toBe('850 ms');
  });
});
