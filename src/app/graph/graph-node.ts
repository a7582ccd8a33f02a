/** One step's node in the plan's graph: where the layout put it, and its title. */
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
