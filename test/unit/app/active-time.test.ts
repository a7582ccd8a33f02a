import { describe, expect, it } from 'vitest';
import { activeAxis, activeMs, mergeSpans } from '../../../src/app/active-time.ts';

describe('active time', () => {
  it('merges spans that overlap or touch, and counts the time any was under way', () => {
    expect(
      mergeSpans([
        [5, 8],
        [0, 2],
        [1, 3],
        [3, 4],
      ]),
    ).toEqual([
      [0, 4],
      [5, 8],
    ]);
    expect(
      activeMs([
        [0, 2],
        [1, 3],
        [10, 11],
      ]),
    ).toBe(4);
    expect(activeMs([])).toBe(0);
  });

  it('cuts idle stretches longer than the limit out of an axis, and says where and how long', () => {
    const axis = activeAxis(
      [
        [1_000, 3_000],
        [3_500, 4_000],
        [10_000_000, 10_002_000],
      ],
      60_000,
    );
    // The 0.5 s pause stays; the ~2.8 h wait is cut.
    expect(axis.position(3_500)).toBe(2_500);
    expect(axis.position(10_000_000)).toBe(3_000);
    expect(axis.position(10_002_000)).toBe(5_000);
    expect(axis.span).toBe(5_000);
    expect(axis.breaks).toEqual([{ at: 3_000, idleMs: 10_000_000 - 4_000 }]);
    // A time inside the cut sits at the cut.
    expect(axis.position(5_000_000)).toBe(3_000);
  });
});
