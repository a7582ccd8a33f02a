import { describe, expect, it } from 'vitest';
import { hashString, mulberry32, sampleItems, shuffled } from '../../../src/evaluation/random.ts';

describe('seeded randomness', () => {
  it('mulberry32 gives the same stream for the same seed, in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(43)()).not.toBe(first[0]);
  });

  it('shuffles a copy into a permutation', () => {
    const items = [1, 2, 3, 4, 5, 6];
    const out = shuffled(items, mulberry32(7));
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...out].sort()).toEqual(items);
  });

  it('samples the same items for the same seed, in file order, and other items for another seed', () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const one = sampleItems(items, 10, 1);
    expect(one).toHaveLength(10);
    expect(sampleItems(items, 10, 1)).toEqual(one);
    expect([...one].sort((x, y) => x - y)).toEqual(one);
    expect(sampleItems(items, 10, 2)).not.toEqual(one);
    expect(sampleItems(items, 500, 1)).toEqual(items);
  });

  it('hashes strings stably (FNV-1a)', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
  });
});
