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
  const found = new Set<string>();
  return { text: replaceForms(text, formsOf(secrets), marker, found), removed: found.size };
}

type Form = readonly [form: string, secret: string];

/** Every form of every secret (4 characters or more), longest first so a secret inside another goes whole. */
function formsOf(secrets: Iterable<string>): Form[] {
  const forms: Form[] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < 4) continue;
    for (const form of new Set(encodedForms(secret))) if (form.length >= 4) forms.push([form, secret]);
  }
  return forms.sort((a, b) => b[0].length - a[0].length);
}

function replaceForms(text: string, forms: readonly Form[], marker: string, found: Set<string>): string {
  let out = text;
  for (const [form, secret] of forms) {
    if (!out.includes(form)) continue;
    found.add(secret);
    out = out.split(form).join(marker);
  }
  return out;
}

/**
 * Removes secrets from a text that arrives in pieces (a response body, as a "binary string" of bytes):
 * a secret split across two pieces is still found, because a tail that could be the start of one is held
 * back until the next piece (or the end) shows whether it is. Only such a tail waits, so text that cannot
 * start a secret streams through at once.
 */
export function createSecretScrubber(secrets: Iterable<string>, marker = REDACTED_KEY) {
  const forms = formsOf(secrets);
  const firsts = new Set(forms.map(([form]) => form[0]));
  const longest = forms[0]?.[0].length ?? 0;
  const found = new Set<string>();
  let held = '';
  /** Length of the longest tail of `text` that is a proper start of some form. */
  const pending = (text: string) => {
    for (let at = Math.max(0, text.length - longest + 1); at < text.length; at++) {
      if (!firsts.has(text[at])) continue;
      const tail = text.slice(at);
      if (forms.some(([form]) => form.length > tail.length && form.startsWith(tail))) return text.length - at;
    }
    return 0;
  };
  return {
    /** Takes the next piece; returns what can be passed on now. */
    push(piece: string): string {
      if (forms.length === 0) return piece;
      const text = replaceForms(held + piece, forms, marker, found);
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

/** An ending no form `encodedForms` makes changes (URL and JSON encoding leave these characters as they are). */
const PLAIN_ENDING = /^[A-Za-z0-9_-]{4}$/;

/**
 * Whether `text` may hold a secret ending in one of `endings` (each saved key's last four characters, which
 * the vault lists while locked) in any form `removeSecrets` finds: plain, URL-encoded, JSON-escaped, or
 * base64 (standard or URL-safe, with or without padding, of the key or of `:key`). False proves that none
 * of those keys is in it, so a body may leave unscrubbed while the keys themselves cannot be read; an
 * ending with other characters (or a short key's `••••`) can never be ruled out.
 */
export function mayHoldSecretEnding(text: string, endings: readonly string[]): boolean {
  if (endings.length === 0) return false;
  if (endings.some((ending) => !PLAIN_ENDING.test(ending) || text.includes(ending))) return true;
  // A base64 form starts anywhere in a run of base64 characters: decoded at each of the four alignments,
  // one of them holds the key's bytes, its last four characters among them.
  for (const run of text.match(/[A-Za-z0-9+/_-]{6,}/g) ?? []) {
    for (let offset = 0; offset < 4; offset++) {
      const decoded = decodeBase64Loosely(run.slice(offset));
      if (endings.some((ending) => decoded.includes(ending))) return true;
    }
  }
  return false;
}

/** Base64 (either alphabet, padding optional) as a binary string; a trailing lone character is dropped. */
function decodeBase64Loosely(base64: string): string {
  const standard = base64.replace(/-/g, '+').replace(/_/g, '/');
  const whole = standard.length % 4 === 1 ? standard.slice(0, -1) : standard;
  try {
    return atob(whole + '='.repeat((4 - (whole.length % 4)) % 4));
  } catch {
    return '';
  }
}

function toBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
