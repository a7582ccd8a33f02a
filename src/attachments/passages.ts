/**
 * A file's text as passages that keep their place: a PDF by page (a long page in several pieces, each
 * still "page 12"), text and Markdown by lines (a Markdown heading starts a passage and names the ones
 * under it), CSV by rows (each passage repeats the header row, so its columns still have their names). A
 * step given passages is sent these pieces with their place, never the rest of the file. Pure and
 * deterministic: the same bytes always give the same passages, so a passage's number (`n`) is what a
 * reviewed plan keeps of the user's choice.
 */
import { quotedName } from '../shared/file-names.ts';
import type { Attachment, PdfAttachment, TextAttachment } from './types.ts';

export interface Passage {
  /** Its number in the file, from 0. */
  n: number;
  /** Where it is, in the words the worker and the user read: "page 12", "lines 40-58", "rows 101-150". */
  place: string;
  /** A PDF's page, from 1. */
  page?: number;
  /** A text file's first and last line, from 1. */
  lines?: [number, number];
  /** A CSV's first and last data row, from 1 (the header row is not counted). */
  rows?: [number, number];
  /** The Markdown heading the passage is under (the file's own text). */
  heading?: string;
  text: string;
}

/**
 * A passage grows to about this many characters (~200 tokens) before it ends at a paragraph break. Smaller
 * than a page's third: on COVID-QA (bench P24) passages of 800-1,200 characters held more answers in less
 * text than 1,200-2,000 did (recall 0.88 to 0.90 at 26 % to 22 % of an article).
 */
export const PASSAGE_TARGET_CHARS = 800;
/** And never past this many, wherever it has reached. */
export const PASSAGE_MAX_CHARS = 1200;

const LINE_BREAK_CHARS = (PASSAGE_TARGET_CHARS + PASSAGE_MAX_CHARS) / 2;

/** At most this many passages go for one file and one step… */
export const MAX_PASSAGES = 5;
/** …and at most this many characters of them (~1,500 tokens). */
export const PASSAGE_BUDGET_CHARS = 6000;

/** A file whose text cannot be read as passages: a scanned PDF, or an image. */
export class PassagesUnavailable extends Error {
  override name = 'PassagesUnavailable';
}

/** Why a file has no passages (an image, a PDF without a text layer), or undefined when it has. */
export function passagesUnavailable(attachment: Attachment): PassagesUnavailable | undefined {
  if (attachment.kind === 'image') {
    return new PassagesUnavailable(
      `${quotedName(attachment.name)} is an image: it has no passages, only the whole image can be sent.`,
    );
  }
  if (attachment.kind === 'pdf' && attachment.pages.every((page) => page.trim() === '')) {
    return new PassagesUnavailable(
      `${quotedName(attachment.name)} has no text layer (a scanned PDF): passages need one. Send it whole to a worker that takes images, or attach a copy with its text.`,
    );
  }
  return undefined;
}

/**
 * Bump when the splitting or the index's terms change: a stored index of another version is rebuilt. 2: a
 * one-digit number is a term ("clause 7"), so an index stored without them would not find it. 3: smaller
 * passages, and a long line cut at a sentence's end.
 */
export const PASSAGES_VERSION = 3;

export type ReadableAttachment = TextAttachment | PdfAttachment;

export function splitPassages(attachment: ReadableAttachment): Passage[] {
  if (attachment.kind === 'pdf') return pdfPassages(attachment.pages);
  if (attachment.kind === 'csv') return csvPassages(attachment.text);
  return linePassages(attachment.text, attachment.kind === 'markdown');
}

interface Piece {
  text: string;
  first: number;
  last: number;
}

/**
 * Lines (numbered from `first`) gathered into pieces: a piece ends at a blank line once it holds the target,
 * at any line once it would pass the maximum, and before a line `breaksBefore` says starts a new one. A line
 * longer than the maximum (minified JSON) is cut into pieces that each name that line.
 */
function gather(lines: readonly string[], first = 1, breaksBefore?: (line: string) => boolean): Piece[] {
  const pieces: Piece[] = [];
  let held: string[] = [];
  let start = first;
  let size = 0;
  const flush = (end: number) => {
    const text = held.join('\n').trim();
    if (text) pieces.push({ text, first: start, last: end });
    held = [];
    size = 0;
  };
  lines.forEach((line, i) => {
    const number = first + i;
    if (held.length > 0 && (breaksBefore?.(line) || size + line.length > PASSAGE_MAX_CHARS)) {
      flush(number - 1);
    }
    if (held.length === 0) start = number;
    if (line.length > PASSAGE_MAX_CHARS) {
      for (const text of cutLine(line)) pieces.push({ text, first: number, last: number });
      return;
    }
    held.push(line);
    size += line.length + 1;
    // A paragraph's end once the target is reached; any line's end halfway to the maximum (a PDF's page or a
    // CSV may have no blank line at all).
    if ((size >= PASSAGE_TARGET_CHARS && line.trim() === '') || size >= LINE_BREAK_CHARS) flush(number);
  });
  flush(first + lines.length - 1);
  return pieces;
}

/**
 * A line longer than the maximum (a paragraph written on one line, minified JSON) in pieces within it: each
 * ends at a sentence's end past the target where there is one, else at a space, else at the maximum. A
 * sentence cut in two is found by neither half.
 */
function cutLine(line: string): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (rest.length > PASSAGE_MAX_CHARS) {
    const head = rest.slice(0, PASSAGE_MAX_CHARS + 1);
    const sentenceEnd = lastMatchEnd(head, /[.!?]["')\]]*\s/g, PASSAGE_TARGET_CHARS);
    const space = head.lastIndexOf(' ');
    const cut = sentenceEnd ?? (space > PASSAGE_TARGET_CHARS / 2 ? space + 1 : PASSAGE_MAX_CHARS);
    const piece = rest.slice(0, cut).trim();
    if (piece) pieces.push(piece);
    rest = rest.slice(cut);
  }
  if (rest.trim()) pieces.push(rest.trim());
  return pieces;
}

/** Where the last match of `pattern` (global) past `from` in `text` ends, if any. */
function lastMatchEnd(text: string, pattern: RegExp, from: number): number | undefined {
  let end: number | undefined;
  for (const match of text.matchAll(pattern)) {
    const at = match.index + match[0].length;
    if (at > from) end = at;
  }
  return end;
}

/** Lines of a text, whatever its line ends (a file written on Windows counts lines as one written elsewhere). */
function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function pdfPassages(pages: readonly string[]): Passage[] {
  const passages: Passage[] = [];
  pages.forEach((text, i) => {
    for (const piece of gather(linesOf(text))) {
      passages.push({ n: passages.length, place: `page ${i + 1}`, page: i + 1, text: piece.text });
    }
  });
  return passages;
}

const HEADING = /^ {0,3}#{1,6}\s+\S/;

function linePassages(text: string, markdown: boolean): Passage[] {
  const lines = linesOf(text);
  let heading: string | undefined;
  const headingAt = new Map<number, string>();
  if (markdown) {
    lines.forEach((line, i) => {
      if (HEADING.test(line)) heading = line.replace(/^ {0,3}#+\s+/, '').trim();
      if (heading !== undefined) headingAt.set(i + 1, heading);
    });
  }
  return gather(lines, 1, markdown ? (line) => HEADING.test(line) : undefined).map((piece, n) => {
    const under = headingAt.get(piece.first);
    return {
      n,
      place: piece.first === piece.last ? `line ${piece.first}` : `lines ${piece.first}-${piece.last}`,
      lines: [piece.first, piece.last],
      ...(under !== undefined ? { heading: under } : {}),
      text: piece.text,
    };
  });
}

function csvPassages(text: string): Passage[] {
  const [header = '', ...rows] = linesOf(text);
  if (rows.length === 0) return linePassages(text, false);
  return gather(rows, 1).map((piece, n) => ({
    n,
    place: piece.first === piece.last ? `row ${piece.first}` : `rows ${piece.first}-${piece.last}`,
    rows: [piece.first, piece.last],
    text: `${header}\n${piece.text}`,
  }));
}
