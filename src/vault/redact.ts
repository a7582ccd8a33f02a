/** What a key looks like wherever we show it: `…` and its last four characters, or `…••••` for short keys. */
export function maskKey(key: string): string {
  return `…${lastFour(key)}`;
}

/** Keys shorter than this keep no plaintext-derived hint at all: four characters of a short key are too much. */
export const MIN_KEY_LENGTH_FOR_LAST4 = 12;

export function lastFour(key: string): string {
  return key.length >= MIN_KEY_LENGTH_FOR_LAST4 ? key.slice(-4) : '••••';
}

/**
 * Scrubs every secret out of `text` (an error body that quotes the key back, a log line), replacing each
 * with its mask. Also catches the secret as it appears URL-encoded, JSON-escaped and base64-encoded
 * (HTTP Basic `user:key` / `:key` credentials echo back that way). Secrets shorter than 4 characters are
 * ignored: replacing them would mangle ordinary text and they are not real keys.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined | null>): string {
  const replacements = new Map<string, string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    const mask = maskKey(secret);
    for (const form of encodedForms(secret)) {
      if (form.length >= 4 && !replacements.has(form)) replacements.set(form, mask);
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  let out = text;
  for (const [form, mask] of [...replacements].sort((a, b) => b[0].length - a[0].length)) {
    out = out.split(form).join(mask);
  }
  return out;
}

/** What a saved key found where it does not belong is replaced with (in a request body, an answer). */
export const REDACTED_KEY = '[redacted key]';

/**
 * Replaces every secret in `text` (in each form {@link redactSecrets} knows) with `marker`, and says how
 * many distinct secrets were found. For request bodies, so the mask gives away nothing of the key.
 */
export function removeSecrets(
  text: string,
  secrets: Iterable<string>,
  marker = REDACTED_KEY,
): { text: string; removed: number } {
  const forms: Array<[form: string, secret: string]> = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < 4) continue;
    for (const form of new Set(encodedForms(secret))) if (form.length >= 4) forms.push([form, secret]);
  }
  const found = new Set<string>();
  let out = text;
  for (const [form, secret] of forms.sort((a, b) => b[0].length - a[0].length)) {
    if (!out.includes(form)) continue;
    found.add(secret);
    out = out.split(form).join(marker);
  }
  return { text: out, removed: found.size };
}

/**
 * Removes secrets from a text that arrives in pieces (a response body, as a "binary string" of bytes):
 * a secret split across two pieces is still found, because a tail that could be the start of one is held
 * back until the next piece (or the end) shows whether it is. Only such a tail waits, so text that cannot
 * start a secret streams through at once.
 */
export function createSecretScrubber(secrets: Iterable<string>, marker = REDACTED_KEY) {
  const list = [...new Set(secrets)].filter((s) => s.length >= 4);
  const forms = [...new Set(list.flatMap(encodedForms))].filter((f) => f.length >= 4);
  const found = new Set<string>();
  let held = '';
  const clean = (text: string) => {
    const result = removeSecrets(text, list, marker);
    if (result.removed > 0) {
      for (const secret of list) if (removeSecrets(text, [secret], marker).removed) found.add(secret);
    }
    return result.text;
  };
  /** Length of the longest tail of `text` that is a proper start of some form. */
  const pending = (text: string) => {
    let longest = 0;
    for (const form of forms) {
      for (let n = Math.min(form.length - 1, text.length); n > longest; n--) {
        if (text.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  };
  return {
    /** Takes the next piece; returns what can be passed on now. */
    push(piece: string): string {
      if (forms.length === 0) return piece;
      const text = clean(held + piece);
      const keep = pending(text);
      held = text.slice(text.length - keep);
      return text.slice(0, text.length - keep);
    },
    /** The held-back tail, at the end of the text. */
    end(): string {
      const rest = held;
      held = '';
      return rest;
    },
    /** How many distinct secrets were found so far. */
    get removed(): number {
      return found.size;
    },
  };
}

function encodedForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  for (const plain of [secret, `:${secret}`]) {
    const b64 = toBase64(plain);
    forms.push(b64, b64.replace(/=+$/, ''), b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return forms;
}

function toBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
