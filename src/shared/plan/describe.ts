// Bounded, inert descriptions of untrusted values for validation messages. A plan comes from a model
// (or an import): a message must name what is wrong without echoing megabytes, recursing without end,
// or turning 1e400 into "null" as JSON.stringify does.

/** Longest quoted text in a message, in UTF-16 units. */
export const QUOTE_LIMIT = 60;
const LIST_ITEMS = 6;
const NESTING = 3;

/** `text` in double quotes, cut to `limit` with an ellipsis and the full length when longer. */
export function quote(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, limit))}… (${count(text.length)} characters)`;
}

/** A short description of any JSON-ish value: never longer than a few hundred characters. */
export function describeValue(value: unknown, depth = 0): string {
  if (typeof value === 'string') return quote(value, depth === 0 ? QUOTE_LIMIT : 20);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : describeNonFinite(value);
  if (value === null || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (depth >= NESTING) return '[…]';
    const shown = value.slice(0, LIST_ITEMS).map((item) => describeValue(item, depth + 1));
    const rest = value.length - shown.length;
    return `[${shown.join(', ')}${rest > 0 ? `, … ${count(rest)} more` : ''}]`;
  }
  if (typeof value === 'object') return Object.keys(value).length === 0 ? '{}' : '{…}';
  return kindOf(value);
}

/** What kind of value this is, with its article: "a string", "an object", "a list", "an empty value". */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'an empty value';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  const type = typeof value;
  return `${type === 'object' ? 'an' : 'a'} ${type}`;
}

function describeNonFinite(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  return value > 0 ? 'a number too large to read' : 'a negative number too large to read';
}

/** 1234567 → "1,234,567" (the same in every locale, like the rest of the messages). */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Number of Unicode code points (what JSON Schema's maxLength counts), without copying the string. */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * True when `text` shows nothing: only whitespace, format characters (zero-width space and joiners,
 * the BOM, bidi marks) and the blank letters that render as nothing (Hangul fillers, braille blank).
 */
export function isBlank(text: string): boolean {
  return /^[\s\p{Cf}\p{Z}\u115f\u1160\u3164\uffa0\u2800]*$/u.test(text);
}
