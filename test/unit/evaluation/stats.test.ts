import { describe, expect, it } from 'vitest';
import { comparePaired, mcnemarExact, wilsonInterval } from '../../../src/evaluation/stats.ts';

const outcomes = (pattern: string) => [...pattern].map((c) => c === '1');

describe('Wilson intervals', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I (score method);
  // the same values come from scipy's binomtest(k, n).proportion_ci(method="wilson").
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [10, 10, 0.7225, 1],
  ])('%i of %i gives %f to %f', (k, n, low, high) => {
    const ci = wilsonInterval(k, n)!;
    expect(ci.low).toBeCloseTo(low, 4);
    expect(ci.high).toBeCloseTo(high, 4);
  });

  it('has no interval without items', () => {
    expect(wilsonInterval(0, 0)).toBeUndefined();
  });
});

describe('paired comparisons', () => {
  it('McNemar exact p-values match the two-sided binomial test (scipy binomtest)', () => {
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 10);
    expect(mcnemarExact(2, 10)).toBeCloseTo(0.03857421875, 10);
    expect(mcnemarExact(20, 10)).toBeCloseTo(0.09873714670538905, 10);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it('counts wins and losses on the same items and brackets the difference', () => {
    const strategy = outcomes('1111111100');
    const best = outcomes('1111110010');
    const result = comparePaired(strategy, best);
    expect(result).toMatchObject({ items: 10, wins: 2, losses: 1 });
    expect(result.difference).toBeCloseTo(0.1, 10);
    expect(result.interval.low).toBeLessThan(0);
    expect(result.interval.high).toBeGreaterThan(0.1);
    // Swapping the two mirrors the result.
    const swapped = comparePaired(best, strategy);
    expect(swapped.difference).toBeCloseTo(-0.1, 10);
    expect(swapped.interval.low).toBeCloseTo(-result.interval.high, 10);
    expect(swapped.interval.high).toBeCloseTo(-result.interval.low, 10);
  });

  it('calls a consistent gain on many items real, and the same gain on few items noise', () => {
    const many = comparePaired(
      outcomes('1'.repeat(60) + '1'.repeat(20) + '0'.repeat(20)),
      outcomes('1'.repeat(60) + '0'.repeat(20) + '0'.repeat(20)),
    );
    expect(many.interval.low).toBeGreaterThan(0);
    expect(many.pValue).toBeLessThan(0.001);
    const few = comparePaired(outcomes('1110'), outcomes('1100'));
    expect(few.interval.low).toBeLessThan(0);
    expect(few.pValue).toBe(1);
  });

  it('identical outcomes differ by nothing, and unequal lengths are refused', () => {
    const same = comparePaired(outcomes('1010'), outcomes('1010'));
    expect(same).toMatchObject({ wins: 0, losses: 0, difference: 0, pValue: 1 });
    expect(same.interval.low).toBeLessThanOrEqual(0);
    expect(same.interval.high).toBeGreaterThanOrEqual(0);
    expect(() => comparePaired(outcomes('1'), outcomes('10'))).toThrow(/same length/);
  });
});
