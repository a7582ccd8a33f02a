// Small helpers for JSON embedded in model output.

/** Index of the bracket closing the object or array opened at `start`, or -1 if the text ends first. */
export function closingIndex(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Removes commas that directly precede `}` or `]` (outside strings), a common slip of small models. */
export function dropTrailingCommas(json: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += json[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',') {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j]!)) j++;
      if (json[j] === '}' || json[j] === ']') continue;
    }
    out += c;
  }
  return out;
}

/**
 * Escapes control characters (U+0000–U+001F) written raw inside strings, which JSON does not allow:
 * web-llm's grammar engine lets a raw tab into a string that has a `maxLength`, as every task has.
 */
export function escapeRawControls(json: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    const code = c.charCodeAt(0);
    if (inString && code < 0x20) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
      continue;
    }
    out += c;
    if (inString && c === '\\') out += json[++i] ?? '';
    else if (c === '"') inString = !inString;
  }
  return out;
}

export function parseJson(slice: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(slice) };
  } catch (error) {
    try {
      return { ok: true, value: JSON.parse(escapeRawControls(dropTrailingCommas(slice))) };
    } catch {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

/**
 * How many times `key` is a key of the object whose text is `objectText` (its own keys, not nested
 * ones). JSON.parse keeps the last of duplicate keys silently; a caller that must agree with a streaming
 * reader, which sees the first, checks for duplicates with this.
 */
export function ownKeyCount(objectText: string, key: string): number {
  let depth = 0;
  let n = 0;
  for (let i = 0; i < objectText.length; i++) {
    const c = objectText[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < objectText.length && objectText[i] !== '"'; i++) if (objectText[i] === '\\') i++;
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < objectText.length && /\s/.test(objectText[j]!)) j++;
      if (objectText[j] !== ':') continue;
      const decoded = parseJson(objectText.slice(start, i + 1));
      if (decoded.ok && decoded.value === key) n++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return n;
}
