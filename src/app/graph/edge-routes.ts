/**
 * Where a graph's edges run: a curve between neighbouring rows, or a lane right of the nodes for an edge
 * that passes rows, so no edge crosses a node.
 */
import type { GraphNode } from './graph-node.ts';
import { NODE_H } from './node-size.ts';

/** An edge that passes rows runs down a lane right of the nodes; each lane this far from the last. */
export const LANE_GAP = 6;
export const LANE_OFFSET = 10;
const MAX_LANES = 6;
const CORNER = 6;

export interface Row {
  level: number;
  /** Slot of the row's first node within its stage. */
  first: number;
  indices: number[];
}

export function rowsOf(byLevel: readonly number[][], perRow: number): Row[] {
  const rows: Row[] = [];
  byLevel.forEach((indices, level) => {
    for (let first = 0; first < indices.length; first += perRow) {
      rows.push({ level, first, indices: indices.slice(first, first + perRow) });
    }
  });
  return rows;
}

/** How many lanes the edges that pass rows need, before nodes have places. */
export function laneCount(rows: readonly Row[], pairs: ReadonlyArray<[number, number]>): number {
  const rowOf: number[] = [];
  rows.forEach((row, r) => {
    for (const index of row.indices) rowOf[index] = r;
  });
  const lanes = colourIntervals(targetSpans(pairs, (i) => rowOf[i]!));
  return lanes.size ? Math.max(...lanes.values()) + 1 : 0;
}

export function gutterFor(lanes: number): number {
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

export function assignLanes(
  pairs: ReadonlyArray<[number, number]>,
  nodes: readonly GraphNode[],
): Map<number, number> {
  return colourIntervals(targetSpans(pairs, (i) => nodes[i]!.row));
}

/** Between neighbouring rows: a curve inside the gap between them, so it crosses no node. */
export function adjacentPath(a: GraphNode, b: GraphNode): string {
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
export function passingPath(a: GraphNode, b: GraphNode, laneX: number, rowTop: readonly number[]): string {
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
