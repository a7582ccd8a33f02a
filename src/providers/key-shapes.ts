/**
 * What the providers' API keys look like, by their documented or published formats, so a key pasted into
 * a question can be found before it is sent (and error bodies scrubbed of one: `redactKeyLike`). Pure.
 *
 * A shape is a provider's prefix and the characters after it; the more specific prefix comes first
 * (`sk-ant-` and `sk-or-v1-` before OpenAI's `sk-`). Mistral's keys have no prefix (32 letters and
 * digits): only such a token that mixes upper case, lower case and digits is taken for one, so a hex hash
 * or a long word is not.
 */

export interface KeyShape {
  /** The provider whose key it looks like, in the user's words. */
  provider: string;
  pattern: RegExp;
}

// A key starts and ends where a token does: not inside a longer run of key characters.
const before = '(?<![A-Za-z0-9_-])';
const after = '(?![A-Za-z0-9_-])';

export const KEY_SHAPES: readonly KeyShape[] = [
  // "sk-ant-api03-…": https://docs.anthropic.com/en/api/getting-started (the key in x-api-key)
  { provider: 'Anthropic', pattern: /sk-ant-[A-Za-z0-9_-]{20,}/ },
  // "sk-or-v1-" and 64 hex digits: https://openrouter.ai/docs/api-reference/authentication
  { provider: 'OpenRouter', pattern: /sk-or-v1-[A-Za-z0-9]{20,}/ },
  // "sk-proj-…", "sk-svcacct-…", "sk-admin-…" and the older "sk-…":
  // https://platform.openai.com/docs/api-reference/authentication; DeepSeek's keys are "sk-" and 32 hex
  // digits (https://api-docs.deepseek.com/), so one is named by its format, not its provider.
  { provider: 'OpenAI or DeepSeek', pattern: /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  // "AIza" and 35 more: https://cloud.google.com/docs/authentication/api-keys (Gemini's AI Studio keys)
  { provider: 'Google', pattern: /AIza[A-Za-z0-9_-]{35}/ },
  // "gsk_…": https://console.groq.com/docs/quickstart
  { provider: 'Groq', pattern: /gsk_[A-Za-z0-9]{20,}/ },
  // "xai-…": https://docs.x.ai/docs/tutorial
  { provider: 'xAI', pattern: /xai-[A-Za-z0-9]{20,}/ },
  // "tgp_v1_…": https://docs.together.ai/reference/authentication-1
  { provider: 'Together AI', pattern: /tgp_v1_[A-Za-z0-9_-]{20,}/ },
  // 32 letters and digits, no prefix: https://docs.mistral.ai/getting-started/quickstart
  {
    provider: 'Mistral',
    pattern: /(?=[A-Za-z0-9]{0,31}[A-Z])(?=[A-Za-z0-9]{0,31}[a-z])(?=[A-Za-z0-9]{0,31}[0-9])[A-Za-z0-9]{32}/,
  },
];

/** One alternation of every shape, each as a group, in order: the first that matches at a place wins. */
const ANY_KEY = new RegExp(
  KEY_SHAPES.map(({ pattern }) => `${before}(${pattern.source})${after}`).join('|'),
  'g',
);

export interface FoundKey {
  /** The key-shaped text, as it stands in the text. */
  text: string;
  /** Where it starts in the text. */
  index: number;
  provider: string;
}

/** Every key-shaped token in `text`, in order. */
export function findKeyShapes(text: string): FoundKey[] {
  const found: FoundKey[] = [];
  for (const match of text.matchAll(ANY_KEY)) {
    const group = match.slice(1).findIndex((g) => g !== undefined);
    found.push({ text: match[0], index: match.index, provider: KEY_SHAPES[group]?.provider ?? 'a provider' });
  }
  return found;
}

/** What a key-shaped token is replaced with when the user removes it from a question. */
export const KEY_REMOVED = '[key removed]';

/** `text` with every key-shaped token replaced by `marker`. */
export function removeKeyShapes(text: string, marker = KEY_REMOVED): string {
  return text.replace(ANY_KEY, marker);
}
