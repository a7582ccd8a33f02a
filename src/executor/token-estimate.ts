/**
 * Token counts for text a provider did not count (it sent no usage): the o200k tokenizer (GPT-4o's BPE,
 * from `gpt-tokenizer`), loaded on first need as a chunk of its own (~1 MB gzip) so it stays out of the
 * page's first load; characters / 4 while it loads or when it cannot be loaded. Every estimate says which
 * of the two counted it, so the page can say so.
 */
import type { ChatMessage } from '../shared/chat.ts';
import type { Estimator } from './types.ts';

/** About 4 characters a token for English under the common BPE tokenizers: the fallback. */
const CHARS_PER_TOKEN = 4;

/**
 * What a chat format adds per message (role and separators): 3 tokens each and 3 to prime the reply,
 * as OpenAI documents for its chat models.
 */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

type Counter = (text: string) => number;

let counter: Counter | undefined;
let loading: Promise<Estimator> | undefined;

/**
 * Loads the o200k tokenizer once; resolves with the estimator in use afterwards ('chars' when it could
 * not be loaded, e.g. offline before the app was cached: a later call tries again). Never rejects.
 */
export function loadTokenizer(): Promise<Estimator> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(
    (m) => {
      // Special-token text in an answer (`<|endoftext|>`) is counted as the plain text it is, not refused.
      const options = { disallowedSpecial: new Set<string>() };
      counter = (text) => m.countTokens(text, options);
      return 'o200k' as const;
    },
    (error: unknown) => {
      console.warn('The o200k tokenizer could not be loaded; estimating 4 characters a token.', error);
      loading = undefined;
      return 'chars' as const;
    },
  );
  return loading;
}

/** Which estimator `estimateTokens` uses now. */
export function currentEstimator(): Estimator {
  return counter ? 'o200k' : 'chars';
}

export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  if (counter) {
    try {
      return counter(text);
    } catch {
      // A tokenizer bug must not lose the spend: fall through to the rough count.
    }
  }
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The prompt's tokens: every message's content, plus the chat format's own tokens. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  if (messages.length === 0) return 0;
  const content = messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  return content + messages.length * TOKENS_PER_MESSAGE + TOKENS_PER_REPLY;
}
