/** Layout of a workflow as a layered graph: steps are nodes, `sees` are edges. Pure, so it is unit-tested. */

import { resolveSees } from '../executor/dag.ts';

export interface GraphStepInput {
  worker: string;
  sees: 'all' | readonly number[];
}

export interface GraphNode {
  index: number;
  /** Stage, top to bottom: 0 for steps that see nothing, else 1 + the deepest step they see. */
  level: number;
  /** Place within its stage, left to right then on the next row when the stage is wider than the card. */
  slot: number;
  /** Row of the drawing (a wide stage takes more than one). */
  row: number;
  x: number;
  y: number;
  /** Size on screen in CSS pixels: every node of a layout has the same, never below MIN_NODE_W × NODE_H. */
  width: number;
  height: number;
  /** The node's first line: step number and the worker's name. */
  title: string;
}

export interface GraphEdge {
  from: number;
  to: number;
  /** SVG path data, from the bottom of `from` to the top of `to`, crossing no other node. */
  d: string;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
  levels: number;
}

/**
 * Stages go top to bottom, because the card is narrow and the page scrolls down: a chain of any length
 * keeps every node inside the card's width at a readable size, where a left-to-right strip showed two or
 * three nodes of it. A stage of parallel steps shares its row and wraps onto the next one when it does not
 * fit. Zooming the whole drawing to fit was the other way, and it shrinks a 15-step chain to unreadable
 * text; only the height of a long plan is left to scroll.
 */
export const MIN_NODE_W = 120;
export const NODE_H = 52;
/** A chain's lone node grows with the card up to this, so its task line shows more. */
export const MAX_NODE_W = 320;
/** Rough width of one character of the node's 12 px title, for fitting text without measuring it. */
export const TITLE_CHAR_W = 7.2;
/** Left of the title: the worker's colour bar and padding; right: padding. */
export const TITLE_INSET = 14;
/** The card width assumed before the graph's box has been measured. */
export const DEFAULT_GRAPH_WIDTH = 480;
const GAP_X = 16;
/** Between the rows of one wrapped stage, and between stages (room for the arrows). */
const ROW_GAP = 14;
const LEVEL_GAP = 28;
const PAD = 8;
/** An edge that passes rows runs down a lane right of the nodes; each lane this far from the last. */
const LANE_GAP = 6;
const LANE_OFFSET = 10;
const MAX_LANES = 6;
const CORNER = 6;

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

/** Each step's stage: one below the deepest step it reads. Steps of one stage can run in parallel. */
function levelsOf(steps: readonly GraphStepInput[]): { levels: number[]; edges: Array<[number, number]> } {
  const levels: number[] = [];
  const edges: Array<[number, number]> = [];
  steps.forEach((step, index) => {
    const deps = dependencies(step, index);
    for (const from of deps) edges.push([from, index]);
    levels.push(deps.length === 0 ? 0 : Math.max(...deps.map((d) => levels[d] ?? 0)) + 1);
  });
  return { levels, edges };
}

/**
 * Lays the workflow out to fit `width` CSS pixels (the graph's box): stages top to bottom, steps of a stage
 * side by side, wrapped onto more rows when they do not fit. Only a box narrower than one node (plus the
 * lanes of edges that pass rows) gets a wider drawing, and scrolls sideways.
 */
export function layoutGraph(
  steps: readonly GraphStepInput[],
  nameOf: WorkerNamer = byId,
  width: number = DEFAULT_GRAPH_WIDTH,
): GraphLayout {
  const { levels, edges: pairs } = levelsOf(steps);
  const levelCount = levels.length ? Math.max(...levels) + 1 : 0;
  const byLevel = Array.from({ length: levelCount }, () => [] as number[]);
  levels.forEach((level, index) => {
    byLevel[level]!.push(index);
  });

  // Rows: each stage chunked into rows of at most `perRow` nodes. Lanes for edges that pass rows are
  // counted first, since they take room at the right.
  const lanesFor = (perRow: number) => laneCount(rowsOf(byLevel, perRow), pairs);
  const available = Math.max(0, Math.floor(width) - PAD * 2);
  const widest = Math.max(1, ...byLevel.map((l) => l.length));
  let perRow = Math.max(1, Math.min(widest, Math.floor((available + GAP_X) / (MIN_NODE_W + GAP_X))));
  let gutter = gutterFor(lanesFor(perRow));
  // The gutter can leave too little room for that many nodes a row: one fewer a row then.
  while (perRow > 1 && perRow * MIN_NODE_W + (perRow - 1) * GAP_X > available - gutter) {
    perRow--;
    gutter = gutterFor(lanesFor(perRow));
  }
  const content = Math.max(MIN_NODE_W, available - gutter);
  const nodeW = Math.max(
    MIN_NODE_W,
    Math.min(MAX_NODE_W, Math.floor((content - (perRow - 1) * GAP_X) / perRow)),
  );
  const rows = rowsOf(byLevel, perRow);

  const nodes: GraphNode[] = [];
  const rowTop: number[] = [];
  let y = PAD;
  rows.forEach((row, r) => {
    if (r > 0) y += rows[r - 1]!.level === row.level ? ROW_GAP : LEVEL_GAP;
    rowTop.push(y);
    const rowWidth = row.indices.length * nodeW + (row.indices.length - 1) * GAP_X;
    const x0 = PAD + Math.max(0, Math.floor((content - rowWidth) / 2));
    row.indices.forEach((index, i) => {
      nodes[index] = {
        index,
        level: row.level,
        slot: row.first + i,
        row: r,
        x: x0 + i * (nodeW + GAP_X),
        y,
        width: nodeW,
        height: NODE_H,
        title: `${index}. ${nameOf(steps[index]!.worker)}`,
      };
    });
    y += NODE_H;
  });
  const height = rows.length ? y + PAD : 0;

  const right = Math.max(0, ...nodes.map((n) => n.x + n.width));
  const lanes = assignLanes(pairs, nodes);
  const edges = pairs.map(([from, to]) => {
    const a = nodes[from]!;
    const b = nodes[to]!;
    const lane = lanes.get(to);
    const d =
      b.row === a.row + 1 || lane === undefined
        ? adjacentPath(a, b)
        : passingPath(a, b, right + LANE_OFFSET + lane * LANE_GAP, rowTop);
    return { from, to, d };
  });
  const laneRight = lanes.size ? right + LANE_OFFSET + (Math.max(...lanes.values()) + 1) * LANE_GAP : right;
  return {
    nodes,
    edges,
    levels: levelCount,
    width: rows.length ? Math.max(Math.floor(width), laneRight + PAD) : 0,
    height,
  };
}

interface Row {
  level: number;
  /** Slot of the row's first node within its stage. */
  first: number;
  indices: number[];
}

function rowsOf(byLevel: readonly number[][], perRow: number): Row[] {
  const rows: Row[] = [];
  byLevel.forEach((indices, level) => {
    for (let first = 0; first < indices.length; first += perRow) {
      rows.push({ level, first, indices: indices.slice(first, first + perRow) });
    }
  });
  return rows;
}

/** How many lanes the edges that pass rows need, before nodes have places. */
function laneCount(rows: readonly Row[], pairs: ReadonlyArray<[number, number]>): number {
  const rowOf: number[] = [];
  rows.forEach((row, r) => {
    for (const index of row.indices) rowOf[index] = r;
  });
  const lanes = colourIntervals(targetSpans(pairs, (i) => rowOf[i]!));
  return lanes.size ? Math.max(...lanes.values()) + 1 : 0;
}

function gutterFor(lanes: number): number {
  return lanes ? LANE_OFFSET + lanes * LANE_GAP : 0;
}

/**
 * Edges that pass a row are grouped by the step they lead to (a step's `sees` list), one lane per group:
 * lines that join a lane all end at that step, so a shared lane is never ambiguous.
 */
function targetSpans(
  pairs: ReadonlyArray<[number, number]>,
  rowOf: (index: number) => number,
): Map<number, [number, number]> {
  const spans = new Map<number, [number, number]>();
  for (const [from, to] of pairs) {
    const top = rowOf(from);
    const bottom = rowOf(to);
    if (bottom <= top + 1) continue;
    const span = spans.get(to);
    spans.set(to, span ? [Math.min(span[0], top), bottom] : [top, bottom]);
  }
  return spans;
}

/** Lanes for spans of rows: spans that overlap get different lanes, up to MAX_LANES (then they share). */
function colourIntervals(spans: ReadonlyMap<number, [number, number]>): Map<number, number> {
  const lanes = new Map<number, number>();
  const laneEnds: number[] = [];
  const ordered = [...spans.entries()].sort((p, q) => p[1][0] - q[1][0] || p[1][1] - q[1][1]);
  for (const [key, [top, bottom]] of ordered) {
    let lane = laneEnds.findIndex((end) => end < top);
    if (lane < 0)
      lane = laneEnds.length < MAX_LANES ? laneEnds.length : laneEnds.indexOf(Math.min(...laneEnds));
    laneEnds[lane] = bottom;
    lanes.set(key, lane);
  }
  return lanes;
}

function assignLanes(
  pairs: ReadonlyArray<[number, number]>,
  nodes: readonly GraphNode[],
): Map<number, number> {
  return colourIntervals(targetSpans(pairs, (i) => nodes[i]!.row));
}

/** Between neighbouring rows: a curve inside the gap between them, so it crosses no node. */
function adjacentPath(a: GraphNode, b: GraphNode): string {
  const x1 = a.x + a.width / 2;
  const y1 = a.y + a.height;
  const x2 = b.x + b.width / 2;
  const y2 = b.y;
  const mid = (y1 + y2) / 2;
  return `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`;
}

/**
 * Past rows in between: down into the gap under the source, right to a lane beside every node, down the
 * lane, left in the gap above the target, and into it. Every leg runs in a gap or the lane.
 */
function passingPath(a: GraphNode, b: GraphNode, laneX: number, rowTop: readonly number[]): string {
  const x1 = a.x + a.width / 2;
  const y1 = a.y + a.height;
  const x2 = b.x + b.width / 2;
  const y2 = b.y;
  const below = (y1 + (rowTop[a.row + 1] ?? y2)) / 2;
  const above = (y2 + (rowTop[b.row - 1] ?? a.y) + NODE_H) / 2;
  return roundedPath([
    [x1, y1],
    [x1, below],
    [laneX, below],
    [laneX, above],
    [x2, above],
    [x2, y2],
  ]);
}

/** A polyline of horizontal and vertical legs with rounded corners. */
function roundedPath(points: ReadonlyArray<readonly [number, number]>): string {
  const [start, ...rest] = points;
  let d = `M${start![0]},${start![1]}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const [px, py] = points[i]!;
    const [cx, cy] = rest[i]!;
    const [nx, ny] = rest[i + 1]!;
    const r = Math.min(CORNER, Math.abs(cx - px + cy - py) / 2, Math.abs(nx - cx + ny - cy) / 2);
    const inX = cx - Math.sign(cx - px) * r;
    const inY = cy - Math.sign(cy - py) * r;
    const outX = cx + Math.sign(nx - cx) * r;
    const outY = cy + Math.sign(ny - cy) * r;
    d += ` L${inX},${inY} Q${cx},${cy} ${outX},${outY}`;
  }
  const end = rest.at(-1)!;
  return `${d} L${end[0]},${end[1]}`;
}

/** Width a node needs to show `title` in full. */
export function titleWidth(title: string): number {
  return Math.ceil(TITLE_INSET * 2 + title.length * TITLE_CHAR_W);
}

/** `text` cut with an ellipsis to what fits in `width` pixels of node (the title font). */
export function fitText(text: string, width: number, charWidth: number = TITLE_CHAR_W): string {
  const max = Math.max(1, Math.floor((width - TITLE_INSET * 2) / charWidth));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A sentence per step for screen readers: "Step 2 (Claude Haiku) sees steps 0 and 1." */
export function describeGraph(steps: readonly GraphStepInput[], nameOf: WorkerNamer = byId): string {
  if (steps.length === 0) return 'No steps yet.';
  const { levels } = levelsOf(steps);
  const stages = Math.max(...levels) + 1;
  const parts = steps.map((step, index) => {
    const deps = dependencies(step, index);
    const sees =
      deps.length === 0
        ? 'sees no earlier step'
        : `sees step${deps.length > 1 ? 's' : ''} ${deps.join(deps.length > 2 ? ', ' : ' and ')}`;
    return `Step ${index} (${nameOf(step.worker)}) ${sees}.`;
  });
  const parallel = steps.length > stages ? ' Steps side by side in one stage can run in parallel.' : '';
  return `Workflow of ${steps.length} step${steps.length === 1 ? '' : 's'} in ${stages} stage${stages === 1 ? '' : 's'}.${parallel} ${parts.join(' ')}`;
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
