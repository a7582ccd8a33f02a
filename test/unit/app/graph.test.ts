import { describe, expect, it } from 'vitest';
import {
  dependencies,
  describeGraph,
  edgePath,
  layoutGraph,
  MAX_NODE_W,
  MIN_NODE_H,
  MIN_NODE_W,
  workerColorIndex,
} from '../../../src/app/graph.ts';
import { namerFor } from '../../../src/app/worker-names.ts';

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

  it('keeps every node of a 15-step chain at its readable size, one column per step, no overlaps', () => {
    const chain = Array.from({ length: 15 }, (_, i) => ({ worker: `w${i % 3}`, sees: i ? [i - 1] : [] }));
    const layout = layoutGraph(chain);
    expect(layout.levels).toBe(15);
    expect(layout.nodes.map((n) => n.level)).toEqual(chain.map((_, i) => i));
    for (const node of layout.nodes) {
      expect(node.width).toBeGreaterThanOrEqual(MIN_NODE_W);
      expect(node.height).toBeGreaterThanOrEqual(MIN_NODE_H);
      expect(node.x + node.width).toBeLessThanOrEqual(layout.width);
      expect(node.y + node.height).toBeLessThanOrEqual(layout.height);
    }
    // Drawn at 1:1 (the box scrolls): the strip is at least a node tall and 15 nodes long.
    expect(layout.height).toBeGreaterThanOrEqual(MIN_NODE_H);
    expect(layout.width).toBeGreaterThanOrEqual(15 * MIN_NODE_W);
    layout.nodes.slice(1).forEach((node, i) => {
      const before = layout.nodes[i]!;
      expect(node.x).toBeGreaterThan(before.x + before.width);
    });
  });

  it('lays a DAG out by levels: a step sits one column right of the deepest step it sees', () => {
    // 0 -> {1, 2}; 3 sees 1 and 2; 4 sees only 0; 5 sees 3 and 4.
    const layout = layoutGraph([
      { worker: 'a', sees: [] },
      { worker: 'b', sees: [0] },
      { worker: 'c', sees: [0] },
      { worker: 'd', sees: [1, 2] },
      { worker: 'e', sees: [0] },
      { worker: 'f', sees: [3, 4] },
    ]);
    expect(layout.nodes.map((n) => n.level)).toEqual([0, 1, 1, 2, 1, 3]);
    expect(layout.levels).toBe(4);
    // Column 1 holds three parallel steps stacked without overlap.
    const column = layout.nodes.filter((n) => n.level === 1).sort((p, q) => p.y - q.y);
    expect(column).toHaveLength(3);
    column.slice(1).forEach((node, i) => {
      expect(node.y).toBeGreaterThanOrEqual(column[i]!.y + column[i]!.height);
      expect(node.x).toBe(column[0]!.x);
    });
    // Every edge runs left to right, from the right edge of its source.
    for (const edge of layout.edges) {
      const from = layout.nodes[edge.from]!;
      const to = layout.nodes[edge.to]!;
      expect(to.x).toBeGreaterThan(from.x + from.width);
      expect(edgePath(from, to)).toMatch(new RegExp(`^M${from.x + from.width},`));
    }
  });

  it("names nodes by the workers' labels and widens a column to fit one, up to a cap", () => {
    const labels = { w1: 'A rather long label for a worker', w2: 'x'.repeat(80) };
    const layout = layoutGraph(
      [
        { worker: 'w1', sees: [] },
        { worker: 'w2', sees: [0] },
        { worker: 'self', sees: 'all' },
      ],
      namerFor(labels),
    );
    expect(layout.nodes.map((n) => n.title)).toEqual([
      '0. A rather long label for a worker',
      `1. ${'x'.repeat(80)}`,
      '2. Conductor (check)',
    ]);
    expect(layout.nodes[0]!.width).toBeGreaterThan(MIN_NODE_W);
    expect(layout.nodes[1]!.width).toBe(MAX_NODE_W);
    expect(describeGraph([{ worker: 'w1', sees: [] }], namerFor(labels))).toContain(
      'Step 0 (A rather long label for a worker) sees no earlier step.',
    );
  });
});
