import { describe, expect, it } from 'vitest';
import { formatCost } from '../../../src/shared/format-cost.ts';

describe('formatCost', () => {
  it('writes a cost of a few tenths of a cent with two significant digits', () => {
    expect(formatCost(0.004)).toBe('$0.0040');
  });

  it('writes small costs in plain decimals with two significant digits, never with an exponent', () => {
    expect(formatCost(5e-7)).toBe('< $0.000001');
    expect(formatCost(0.000_001_2)).toBe('$0.0000012');
    expect(formatCost(0.000_012)).toBe('$0.000012');
    expect(formatCost(0.000_42)).toBe('$0.00042');
    expect(formatCost(0.012_3)).toBe('$0.012');
    expect(formatCost(2.5)).toBe('$2.50');
    for (let exponent = -12; exponent <= 3; exponent++) {
      for (const mantissa of [1, 2.5, 5, 9.99]) {
        expect(formatCost(mantissa * 10 ** exponent)).not.toMatch(/\de[-+]?\d/);
      }
    }
  });

  it('says a dash for no cost, and $0 for nothing spent', () => {
    expect(formatCost(undefined)).toBe('—');
    expect(formatCost(Number.NaN)).toBe('—');
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(-0.5)).toBe('-$0.500');
  });
});
