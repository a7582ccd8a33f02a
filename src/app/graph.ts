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
  /** Size on screen in CSS pixels: wide enough for the step's first line, never below MIN_NODE_W × MIN_NODE_H. */
  width: number;
  height: number;
  /** The node's first line: step number and the worker's name. */
  title: string;
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

/**
 * The graph is drawn at 1:1 and scrolls inside its own box instead of shrinking to fit: a node is never
 * smaller than this, so a 15-step chain stays readable.
 */
export const MIN_NODE_W = 150;
export const MIN_NODE_H = 52;
/** A long worker label is clipped with an ellipsis past this width (the full name is in the tooltip). */
export const MAX_NODE_W = 240;
/** Rough width of one character of the node's 12 px title, for sizing nodes without measuring text. */
export const TITLE_CHAR_W = 7.2;
/** Left of the title: the worker's colour bar and padding; right: padding. */
export const TITLE_INSET = 14;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 8;

/** How the graph names a worker: the user's label; the id only when the label is unknown. */
export type WorkerNamer = (worker: string) => string;
const byId: WorkerNamer = (worker) => worker;

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
export function layoutGraph(steps: readonly GraphStepInput[], nameOf: WorkerNamer = byId): GraphLayout {
  const levels: number[] = [];
  const edges: GraphEdge[] = [];
  steps.forEach((step, index) => {
    const deps = dependencies(step, index);
    for (const from of deps) edges.push({ from, to: index });
    levels.push(deps.length === 0 ? 0 : Math.max(...deps.map((d) => levels[d] ?? 0)) + 1);
  });
  const levelCount = levels.length ? Math.max(...levels) + 1 : 0;
  const titles = steps.map((step, index) => `${index}. ${nameOf(step.worker)}`);
  // Every node of a column gets the column's width, so the column's edges leave from one line.
  const columnWidth = Array.from({ length: levelCount }, () => MIN_NODE_W);
  titles.forEach((title, index) => {
    const level = levels[index]!;
    columnWidth[level] = Math.max(columnWidth[level]!, Math.min(MAX_NODE_W, titleWidth(title)));
  });
  const columnX: number[] = [];
  let x = PAD;
  for (const width of columnWidth) {
    columnX.push(x);
    x += width + GAP_X;
  }
  const rows = new Map<number, number>();
  const nodes: GraphNode[] = levels.map((level, index) => {
    const row = rows.get(level) ?? 0;
    rows.set(level, row + 1);
    return {
      index,
      level,
      row,
      x: columnX[level]!,
      y: PAD + row * (MIN_NODE_H + GAP_Y),
      width: columnWidth[level]!,
      height: MIN_NODE_H,
      title: titles[index]!,
    };
  });
  const maxRows = rows.size ? Math.max(...rows.values()) : 0;
  // Centre short columns vertically against the tallest one.
  for (const node of nodes) {
    const inLevel = rows.get(node.level) ?? 1;
    node.y += ((maxRows - inLevel) * (MIN_NODE_H + GAP_Y)) / 2;
  }
  return {
    nodes,
    edges,
    levels: levelCount,
    width: levelCount ? x - GAP_X + PAD : 0,
    height: maxRows ? PAD * 2 + maxRows * MIN_NODE_H + (maxRows - 1) * GAP_Y : 0,
  };
}

/** Width a node needs to show `title` in full (before the MAX_NODE_W cap). */
export function titleWidth(title: string): number {
  return Math.ceil(TITLE_INSET * 2 + title.length * TITLE_CHAR_W);
}

/** `text` cut with an ellipsis to what fits in `width` pixels of node (the title font). */
export function fitText(text: string, width: number, charWidth: number = TITLE_CHAR_W): string {
  const max = Math.max(1, Math.floor((width - TITLE_INSET * 2) / charWidth));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A cubic curve from the right edge of one node to the left edge of another. */
export function edgePath(from: GraphNode, to: GraphNode): string {
  const x1 = from.x + from.width;
  const y1 = from.y + from.height / 2;
  const x2 = to.x;
  const y2 = to.y + to.height / 2;
  const mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}

/** A sentence per step for screen readers: "Step 2 (Claude Haiku) sees steps 0 and 1." */
export function describeGraph(steps: readonly GraphStepInput[], nameOf: WorkerNamer = byId): string {
  if (steps.length === 0) return 'No steps yet.';
  const layout = layoutGraph(steps, nameOf);
  const parts = steps.map((step, index) => {
    const deps = dependencies(step, index);
    const sees =
      deps.length === 0
        ? 'sees no earlier step'
        : `sees step${deps.length > 1 ? 's' : ''} ${deps.join(deps.length > 2 ? ', ' : ' and ')}`;
    return `Step ${index} (${nameOf(step.worker)}) ${sees}.`;
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
