/** Layout of a workflow as a layered graph: steps are nodes, `sees` are edges. Pure, so it is unit-tested. */

import { resolveSees } from '../executor/dag.ts';

export interface GraphStepInput {
  worker: string;
  sees: 'all' | readonly number[];
}

export interface GraphNode {
  index: number;
  /** Column: 0 for steps that see nothing, else 1 + the deepest step they see. */
  level: number;
  /** Row within the column. */
  row: number;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: number;
  to: number;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
  levels: number;
}

export const NODE_W = 150;
export const NODE_H = 52;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 8;

/**
 * Indices a step reads: the executor's own resolveSees, minus indices no node has (a step being edited may
 * hold any number), so the graph never draws an edge the run would not have.
 */
export function dependencies(step: GraphStepInput, index: number): number[] {
  return resolveSees(step.sees, index).filter((i) => Number.isInteger(i) && i >= 0);
}

/**
 * Steps in the same column do not depend on each other, so they can run in parallel; the longest chain of
 * `sees` sets the number of columns.
 */
export function layoutGraph(steps: readonly GraphStepInput[]): GraphLayout {
  const levels: number[] = [];
  const edges: GraphEdge[] = [];
  steps.forEach((step, index) => {
    const deps = dependencies(step, index);
    for (const from of deps) edges.push({ from, to: index });
    levels.push(deps.length === 0 ? 0 : Math.max(...deps.map((d) => levels[d] ?? 0)) + 1);
  });
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = levels.map((level, index) => {
    const row = rows.get(level) ?? 0;
    rows.set(level, row + 1);
    return { index, level, row, x: PAD + level * (NODE_W + GAP_X), y: PAD + row * (NODE_H + GAP_Y) };
  });
  const levelCount = levels.length ? Math.max(...levels) + 1 : 0;
  const maxRows = rows.size ? Math.max(...rows.values()) : 0;
  // Centre short columns vertically against the tallest one.
  for (const node of nodes) {
    const inLevel = rows.get(node.level) ?? 1;
    node.y += ((maxRows - inLevel) * (NODE_H + GAP_Y)) / 2;
  }
  return {
    nodes,
    edges,
    levels: levelCount,
    width: levelCount ? PAD * 2 + levelCount * NODE_W + (levelCount - 1) * GAP_X : 0,
    height: maxRows ? PAD * 2 + maxRows * NODE_H + (maxRows - 1) * GAP_Y : 0,
  };
}

/** A cubic curve from the right edge of one node to the left edge of another. */
export function edgePath(from: GraphNode, to: GraphNode): string {
  const x1 = from.x + NODE_W;
  const y1 = from.y + NODE_H / 2;
  const x2 = to.x;
  const y2 = to.y + NODE_H / 2;
  const mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}

/** A sentence per step for screen readers: "Step 2 (w1) sees steps 0 and 1." */
export function describeGraph(steps: readonly GraphStepInput[]): string {
  if (steps.length === 0) return 'No steps yet.';
  const layout = layoutGraph(steps);
  const parts = steps.map((step, index) => {
    const deps = dependencies(step, index);
    const sees =
      deps.length === 0
        ? 'sees no earlier step'
        : `sees step${deps.length > 1 ? 's' : ''} ${deps.join(deps.length > 2 ? ', ' : ' and ')}`;
    return `Step ${index} (${step.worker}) ${sees}.`;
  });
  const parallel =
    layout.nodes.length > layout.levels ? ' Steps in the same column can run in parallel.' : '';
  return `Workflow of ${steps.length} step${steps.length === 1 ? '' : 's'} in ${layout.levels} stage${layout.levels === 1 ? '' : 's'}.${parallel} ${parts.join(' ')}`;
}

/** The CSS colour of a worker's slot (`--w0`..`--w7`), for chips, bars and graph nodes. */
export function workerColor(worker: string, poolOrder: readonly string[]): string {
  return `var(--w${workerColorIndex(worker, poolOrder)})`;
}

/** Stable colour slot (0..7) per worker id, in the order the pool lists them. */
export function workerColorIndex(worker: string, poolOrder: readonly string[]): number {
  const at = poolOrder.indexOf(worker);
  if (at >= 0) return at % 8;
  let hash = 0;
  for (const ch of worker) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return hash % 8;
}
