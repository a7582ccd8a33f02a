/**
 * Layout of a workflow as a layered graph: steps are nodes, `sees` are edges. Pure, so it is unit-tested.
 *
 * Stages go top to bottom, because the card is narrow and the page scrolls down: a chain of any length
 * keeps every node inside the card's width at a readable size, where a left-to-right strip showed two or
 * three nodes of it. A stage of parallel steps shares its row and wraps onto the next one when it does not
 * fit. Zooming the whole drawing to fit was the other way, and it shrinks a 15-step chain to unreadable
 * text; only the height of a long plan is left to scroll.
 */
import {
  adjacentPath,
  assignLanes,
  gutterFor,
  LANE_GAP,
  LANE_OFFSET,
  laneCount,
  passingPath,
  rowsOf,
} from './edge-routes.ts';
import type { GraphNode } from './graph-node.ts';
import { MAX_NODE_W, MIN_NODE_W, NODE_H } from './node-size.ts';
import { byId, type GraphStepInput, levelsOf, type WorkerNamer } from './stages.ts';

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

/** The card width assumed before the graph's box has been measured. */
export const DEFAULT_GRAPH_WIDTH = 480;
const GAP_X = 16;
/** Between the rows of one wrapped stage, and between stages (room for the arrows). */
const ROW_GAP = 14;
const LEVEL_GAP = 28;
const PAD = 8;

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
