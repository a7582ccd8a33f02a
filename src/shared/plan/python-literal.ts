/**
 * A small reader for Python literals, enough for the Conductor paper's output:
 * lists, tuples, strings (single, double or triple quotes, r/u/b prefixes, escapes, adjacent-literal
 * concatenation), integers and floats, and bare names (`all`, `None`, `True`, `False`).
 * Comments (`# ...`) and line continuations are skipped between tokens.
 */

/** A bare name such as `all` or `None`. */
export interface PyName {
  name: string;
}

export type PyValue = string | number | PyName | PyValue[];

export class PySyntaxError extends Error {
  override readonly name = 'PySyntaxError';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

export function isPyName(value: PyValue): value is PyName {
  return typeof value === 'object' && !Array.isArray(value);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

// Sticky patterns, matched at a position without slicing the text.
const STRING_START = /[rRuUbB]{0,2}["']/y;
const NUMBER = /[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][-+]?\d+)?/y;
const IDENTIFIER = /[A-Za-z_]\w*/y;

/** Reads one Python literal starting at `start` (leading whitespace allowed). Throws PySyntaxError. */
export function readPythonLiteral(text: string, start: number): { value: PyValue; end: number } {
  const reader = new Reader(text, start);
  const value = reader.value();
  return { value, end: reader.pos };
}

class Reader {
  constructor(
    readonly text: string,
    public pos: number,
  ) {}

  private fail(message: string): never {
    throw new PySyntaxError(message, this.pos);
  }

  /** Skips spaces, newlines, comments and backslash line continuations. */
  private skip(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') this.pos++;
      else if (c === '#') {
        while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
      } else if (c === '\\' && (t[this.pos + 1] === '\n' || t[this.pos + 1] === '\r')) this.pos += 2;
      else break;
    }
  }

  value(): PyValue {
    this.skip();
    const t = this.text;
    const c = t[this.pos];
    if (c === undefined) this.fail('unexpected end of text');
    if (c === '[') return this.sequence(']');
    if (c === '(') return this.sequence(')');
    if (this.atString()) return this.strings();
    if (/[-+0-9.]/.test(c)) return this.number();
    if (/[A-Za-z_]/.test(c)) return { name: this.identifier() };
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }

  private sequence(close: ']' | ')'): PyValue[] {
    this.pos++; // the opening bracket
    const items: PyValue[] = [];
    for (;;) {
      this.skip();
      if (this.text[this.pos] === close) {
        this.pos++;
        return items;
      }
      items.push(this.value());
      this.skip();
      const c = this.text[this.pos];
      if (c === ',') this.pos++;
      else if (c !== close) this.fail(c === undefined ? `missing "${close}"` : `expected "," or "${close}"`);
    }
  }

  /** A string literal starts here: an optional prefix of up to two letters from r, u, b, then a quote. */
  private atString(): boolean {
    STRING_START.lastIndex = this.pos;
    return STRING_START.test(this.text);
  }

  /** One or more adjacent string literals, concatenated as Python does. */
  private strings(): string {
    let out = this.string();
    for (;;) {
      const save = this.pos;
      this.skip();
      if (this.atString()) out += this.string();
      else {
        this.pos = save;
        return out;
      }
    }
  }

  private string(): string {
    const t = this.text;
    let raw = false;
    while (t[this.pos] !== '"' && t[this.pos] !== "'") {
      if (t[this.pos] === 'r' || t[this.pos] === 'R') raw = true;
      this.pos++;
    }
    const quote = t[this.pos]!;
    const triple = t.startsWith(quote.repeat(3), this.pos);
    const closer = triple ? quote.repeat(3) : quote;
    this.pos += closer.length;
    let out = '';
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) this.fail('unterminated string');
      if (t.startsWith(closer, this.pos)) {
        this.pos += closer.length;
        return out;
      }
      if (c === '\n' && !triple) this.fail('a newline inside a one-line string');
      if (c === '\\') {
        const next = t[this.pos + 1];
        if (next === undefined) this.fail('unterminated string');
        if (raw) {
          // A raw string keeps the backslash, but a backslash still stops the quote from closing it.
          out += c + next;
          this.pos += 2;
          continue;
        }
        this.pos += 2;
        out += this.escape(next);
        continue;
      }
      out += c;
      this.pos++;
    }
  }

  /** The text of the escape `\` + `c`; `pos` is just after `c`. */
  private escape(c: string): string {
    const t = this.text;
    if (c === '\n') return '';
    if (c === '\r') {
      if (t[this.pos] === '\n') this.pos++;
      return '';
    }
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return simple;
    const hex = (digits: number): string => {
      const h = t.slice(this.pos, this.pos + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(h)) this.fail(`bad \\${c} escape`);
      this.pos += digits;
      return String.fromCodePoint(Number.parseInt(h, 16));
    };
    if (c === 'x') return hex(2);
    if (c === 'u') return hex(4);
    if (c === 'U') return hex(8);
    if (c >= '0' && c <= '7') {
      let digits = c;
      while (digits.length < 3 && /[0-7]/.test(t[this.pos] ?? '')) digits += t[this.pos++];
      return String.fromCodePoint(Number.parseInt(digits, 8));
    }
    // Python keeps unknown escapes (and \N{...}, which needs a name table) as written.
    return `\\${c}`;
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const s = NUMBER.exec(this.text)?.[0] ?? '';
    if (!/\d/.test(s)) this.fail('expected a number');
    this.pos += s.length;
    const n = Number(s.replaceAll('_', ''));
    if (Number.isNaN(n)) this.fail(`bad number ${s}`);
    return n;
  }

  private identifier(): string {
    IDENTIFIER.lastIndex = this.pos;
    const name = IDENTIFIER.exec(this.text)![0];
    this.pos += name.length;
    return name;
  }
}
