import { describe, expect, it } from 'vitest';
import { dependencies, describeGraph, layoutGraph, workerColorIndex } from '../../../src/app/graph.ts';

describe('workflow graph layout', () => {
  it('puts independent steps in one column and their aggregator in the next', () => {
    const layout = layoutGraph([
      { worker: 'w1', sees: [] },
      { worker: 'w2', sees: [] },
      { worker: 'w3', sees: [0, 1] },
    ]);
    expect(layout.nodes.map((n) => n.level)).toEqual([0, 0, 1]);
    expect(layout.nodes.map((n) => n.row)).toEqual([0, 1, 0]);
    expect(layout.edges).toEqual([
      { from: 0, to: 2 },
      { from: 1, to: 2 },
    ]);
    expect(layout.levels).toBe(2);
    // The lone node of column 1 is centred against the two of column 0.
    const [a, b, c] = layout.nodes;
    expect(c!.y).toBeCloseTo((a!.y + b!.y) / 2);
  });

  it('resolves "all" to every earlier step and ignores forward or out-of-range indices', () => {
    expect(dependencies({ worker: 'w', sees: 'all' }, 3)).toEqual([0, 1, 2]);
    expect(dependencies({ worker: 'w', sees: [5, 1, 1, 2] }, 2)).toEqual([1]);
    const chain = layoutGraph([
      { worker: 'a', sees: [] },
      { worker: 'b', sees: [0] },
      { worker: 'c', sees: 'all' },
    ]);
    expect(chain.nodes.map((n) => n.level)).toEqual([0, 1, 2]);
    expect(chain.edges).toHaveLength(3);
  });

  it('describes the graph in words for screen readers, mentioning parallel steps', () => {
    const text = describeGraph([
      { worker: 'w1', sees: [] },
      { worker: 'w2', sees: [] },
      { worker: 'w0', sees: 'all' },
    ]);
    expect(text).toContain('3 steps in 2 stages');
    expect(text).toContain('can run in parallel');
    expect(text).toContain('Step 2 (w0) sees steps 0 and 1.');
    expect(describeGraph([])).toBe('No steps yet.');
  });

  it('gives pool workers their pool position as colour and others a stable hash', () => {
    expect(workerColorIndex('w2', ['w1', 'w2'])).toBe(1);
    expect(workerColorIndex('zzz', [])).toBe(workerColorIndex('zzz', ['a']));
    expect(workerColorIndex('zzz', [])).toBeLessThan(8);
  });
});
