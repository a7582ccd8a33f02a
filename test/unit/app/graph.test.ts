import { describe, expect, it } from 'vitest';
import { describeGraph } from '../../../src/app/graph/description.ts';
import type { GraphNode } from '../../../src/app/graph/graph-node.ts';
import { DEFAULT_GRAPH_WIDTH, type GraphLayout, layoutGraph } from '../../../src/app/graph/layout.ts';
import { MIN_NODE_W, NODE_H } from '../../../src/app/graph/node-size.ts';
import { dependencies, type GraphStepInput } from '../../../src/app/graph/stages.ts';
import { workerColorIndex } from '../../../src/app/worker-color.ts';
import { namerFor } from '../../../src/app/worker-names.ts';

const chain = (length: number, last: GraphStepInput['sees'] = [length - 2]): GraphStepInput[] =>
  Array.from({ length }, (_, i) => ({
    worker: `w${i % 3}`,
    sees: i === 0 ? [] : i === length - 1 ? last : [i - 1],
  }));

/** `width` proposers that see nothing, then one step that reads them all. */
const fan = (width: number): GraphStepInput[] => [
  ...Array.from({ length: width }, (_, i) => ({ worker: `w${i % 4}`, sees: [] as number[] })),
  { worker: 'w0', sees: 'all' },
];

/** Mixture-of-Agents: `proposers` per layer, each layer reading the one before, then an aggregator. */
const moa = (proposers: number, layers: number): GraphStepInput[] => {
  const steps: GraphStepInput[] = [];
  let previous: number[] = [];
  for (let layer = 0; layer < layers; layer++) {
    const current: number[] = [];
    for (let p = 0; p < proposers; p++) {
      current.push(steps.length);
      steps.push({ worker: `w${p}`, sees: previous });
    }
    previous = current;
  }
  return [...steps, { worker: 'w9', sees: previous }];
};

/** Points along an SVG path made of M, L, Q and C commands (what the layout writes). */
function pathPoints(d: string): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  let at: [number, number] = [0, 0];
  for (const [, command, args] of d.matchAll(/([MLQC])([^MLQC]*)/g)) {
    const n = (args ?? '')
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i + 1 < n.length; i += 2) pairs.push([n[i]!, n[i + 1]!]);
    const controls: Array<[number, number]> = [at, ...pairs];
    const steps = command === 'M' ? 0 : 24;
    for (let s = 1; s <= steps; s++) points.push(bezier(controls, s / steps));
    at = pairs.at(-1)!;
    points.push(at);
  }
  return points;
}

function bezier(controls: Array<[number, number]>, t: number): [number, number] {
  let level = controls;
  while (level.length > 1) {
    level = level
      .slice(1)
      .map((p, i) => [level[i]![0] + (p[0] - level[i]![0]) * t, level[i]![1] + (p[1] - level[i]![1]) * t]);
  }
  return level[0]!;
}

const inside = (node: GraphNode, [x, y]: [number, number]) =>
  x > node.x + 0.5 && x < node.x + node.width - 0.5 && y > node.y + 0.5 && y < node.y + node.height - 0.5;

/** Everything a layout promises the card it is drawn in, as a list of what it broke (empty when it fits). */
function misfits(layout: GraphLayout, width: number): string[] {
  const problems: string[] = [];
  if (layout.width > width) problems.push(`drawing ${layout.width} px wide`);
  for (const node of layout.nodes) {
    if (node.x < 0 || node.x + node.width > width) problems.push(`node ${node.index} outside the card`);
    if (node.y + node.height > layout.height) problems.push(`node ${node.index} below the drawing`);
    if (node.width < MIN_NODE_W || node.height !== NODE_H) problems.push(`node ${node.index} too small`);
  }
  for (const [i, a] of layout.nodes.entries()) {
    for (const b of layout.nodes.slice(i + 1)) {
      const apart =
        a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      if (!apart) problems.push(`nodes ${a.index} and ${b.index} overlap`);
    }
  }
  for (const edge of layout.edges) {
    const from = layout.nodes[edge.from]!;
    const to = layout.nodes[edge.to]!;
    const name = `edge ${edge.from}→${edge.to}`;
    // A step is drawn below every step it reads.
    if (to.y <= from.y + from.height) problems.push(`${name} does not run down`);
    const points = pathPoints(edge.d);
    if (points.some(([x]) => x < 0 || x > width)) problems.push(`${name} leaves the card`);
    for (const node of layout.nodes) {
      if (points.some((point) => inside(node, point))) problems.push(`${name} crosses node ${node.index}`);
    }
  }
  return problems;
}

describe('workflow graph layout', () => {
  it('puts independent steps side by side in one stage and their aggregator in the stage below', () => {
    const layout = layoutGraph([
      { worker: 'w1', sees: [] },
      { worker: 'w2', sees: [] },
      { worker: 'w3', sees: [0, 1] },
    ]);
    expect(layout.nodes.map((n) => n.level)).toEqual([0, 0, 1]);
    expect(layout.nodes.map((n) => n.slot)).toEqual([0, 1, 0]);
    expect(layout.edges.map(({ from, to }) => [from, to])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(layout.levels).toBe(2);
    const [a, b, c] = layout.nodes;
    expect(a!.y).toBe(b!.y);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width);
    // The lone node of the next stage sits below, centred under the two.
    expect(c!.y).toBeGreaterThan(a!.y + a!.height);
    expect(c!.x + c!.width / 2).toBeCloseTo((a!.x + b!.x + b!.width) / 2, 0);
  });

  it('resolves "all" to every earlier step and ignores forward or out-of-range indices', () => {
    expect(dependencies({ worker: 'w', sees: 'all' }, 3)).toEqual([0, 1, 2]);
    expect(dependencies({ worker: 'w', sees: [5, 1, 1, 2] }, 2)).toEqual([1]);
    const steps = layoutGraph([
      { worker: 'a', sees: [] },
      { worker: 'b', sees: [0] },
      { worker: 'c', sees: 'all' },
    ]);
    expect(steps.nodes.map((n) => n.level)).toEqual([0, 1, 2]);
    expect(steps.edges).toHaveLength(3);
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

  // 320: a card on a phone; 480: the default; 540: half of the run view on a 1280 px screen.
  for (const width of [320, DEFAULT_GRAPH_WIDTH, 540]) {
    it(`keeps every node and edge of 5- and 15-step chains inside a ${width} px card`, () => {
      for (const steps of [chain(5), chain(15), chain(15, 'all')]) {
        const layout = layoutGraph(steps, undefined, width);
        expect(misfits(layout, width)).toEqual([]);
        // A chain reads top to bottom, one step a stage.
        expect(layout.nodes.map((n) => n.level)).toEqual(steps.map((_, i) => i));
        layout.nodes.slice(1).forEach((node, i) => {
          expect(node.y).toBeGreaterThan(layout.nodes[i]!.y);
        });
      }
    });

    it(`keeps wide parallel plans inside a ${width} px card, wrapping a stage that does not fit`, () => {
      for (const steps of [fan(3), fan(8), fan(15), moa(3, 2), moa(5, 2)]) {
        const layout = layoutGraph(steps, undefined, width);
        expect(misfits(layout, width)).toEqual([]);
      }
      // Eight parallel steps cannot share one row of a card this narrow: their stage takes more rows.
      const wide = layoutGraph(fan(8), undefined, width);
      const rows = new Set(wide.nodes.filter((n) => n.level === 0).map((n) => n.row));
      expect(rows.size).toBeGreaterThan(1);
      expect(wide.nodes.filter((n) => n.level === 0).map((n) => n.slot)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });
  }

  it('lays a DAG out by stages: a step sits one stage below the deepest step it sees', () => {
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
    const stage = layout.nodes.filter((n) => n.level === 1);
    expect(new Set(stage.map((n) => n.y)).size).toBe(1);
    expect(misfits(layout, DEFAULT_GRAPH_WIDTH)).toEqual([]);
  });

  it('draws a plan wider than a very narrow box at its readable size, so only then does the box scroll sideways', () => {
    const layout = layoutGraph(fan(3), undefined, 100);
    expect(layout.width).toBeGreaterThan(100);
    expect(misfits(layout, layout.width)).toEqual([]);
  });

  it("names nodes by the workers' labels", () => {
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
    expect(describeGraph([{ worker: 'w1', sees: [] }], namerFor(labels))).toContain(
      'Step 0 (A rather long label for a worker) sees no earlier step.',
    );
  });
});
