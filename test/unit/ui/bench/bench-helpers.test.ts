import { describe, expect, it } from 'vitest';
import {
  formatAxisDollars,
  formatAxisTokens,
  linearScale,
  niceTicks,
  stackSegments,
} from '../../../../src/ui/bench/chart-math.ts';

describe('chart ticks and scales', () => {
  it('picks round steps that reach the maximum', () => {
    expect(niceTicks(0.00023, 5)).toEqual([0, 0.0001, 0.0002, 0.0003]);
    expect(niceTicks(84, 5)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(100, 5)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(7, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(Number.NaN)).toEqual([0, 1]);
    // No floating-point noise in the labels.
    expect(niceTicks(0.3, 4).map(formatAxisDollars)).toEqual(['$0', '$0.1', '$0.2', '$0.3']);
  });

  it('maps a domain onto a range, also upside down (SVG y grows downwards)', () => {
    const y = linearScale(1, 250, 18);
    expect(y(0)).toBe(250);
    expect(y(1)).toBe(18);
    expect(y(0.5)).toBe(134);
    expect(linearScale(0, 0, 100)(0)).toBe(0);
  });

  it('formats axis labels shortly', () => {
    expect(formatAxisDollars(0.00012345)).toBe('$0.00012');
    expect(formatAxisDollars(1.2345)).toBe('$1.23');
    // Ticks of a bench that cost fractions of a millionth of a dollar: plain decimals, no exponent.
    expect(formatAxisDollars(2e-7)).toBe('$0.0000002');
    expect(niceTicks(5e-7, 4).map(formatAxisDollars).join(' ')).not.toMatch(/e-/);
    expect(formatAxisTokens(950)).toBe('950');
    expect(formatAxisTokens(12_500)).toBe('12.5k');
  });

  it('stacks worker segments in pool order, skipping empty ones, unknown workers last', () => {
    expect(stackSegments({ facts: 68, arith: 16, ghost: 5, idle: 0 }, ['arith', 'idle', 'facts'])).toEqual([
      { worker: 'arith', start: 0, value: 16 },
      { worker: 'facts', start: 16, value: 68 },
      { worker: 'ghost', start: 84, value: 5 },
    ]);
  });
});
