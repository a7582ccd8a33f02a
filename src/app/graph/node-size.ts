/** The size of a graph's node, and the text that fits in one (fitted by character count, not measured). */

export const MIN_NODE_W = 120;
export const NODE_H = 52;
/** A chain's lone node grows with the card up to this, so its task line shows more. */
export const MAX_NODE_W = 320;
/** Rough width of one character of the node's 12 px title, for fitting text without measuring it. */
export const TITLE_CHAR_W = 7.2;
/** Left of the title: the worker's colour bar and padding; right: padding. */
export const TITLE_INSET = 14;

/** `text` cut with an ellipsis to what fits in `width` pixels of node (the title font). */
export function fitText(text: string, width: number, charWidth: number = TITLE_CHAR_W): string {
  const max = Math.max(1, Math.floor((width - TITLE_INSET * 2) / charWidth));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
