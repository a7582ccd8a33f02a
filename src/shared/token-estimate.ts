/**
 * Token counts for text a provider did not count (it sent no usage): the o200k tokenizer (GPT-4o's BPE,
 * from `gpt-tokenizer`), loaded on first need as a chunk of its own (~1 MB gzip) so it stays out of the
 * page's first load; characters / 4 while it loads or when it cannot be loaded. Every estimate says which
 * of the two counted it, so the page can say so.
 */
import type { ChatMessage } from './chat.ts';

/**
 * What counted tokens the provider did not: the o200k tokenizer, or characters / 4 (while it loads, when it
 * cannot be loaded, and in records from before the tokenizer).
 */
export type Estimator = 'o200k' | 'chars';

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

/**
 * Longest run without white space the tokenizer is given whole. Byte-pair encoding is quadratic in the
 * length of one pre-token, and the o200k pre-tokenizer keeps a run of letters (`xxxx…`, base64 without
 * padding) as one: a 400 KB run took minutes. A longer run is counted in pieces of this length, which
 * changes the count by at most one token per piece, where a real text has almost no such runs.
 */
const LONGEST_RUN = 256;

/** White space that ends a run: ASCII, and the no-break space. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
}

/**
 * `count` over `text`, with every run longer than LONGEST_RUN counted in pieces: linear in the text. The
 * runs are found by a plain scan: a regular expression for them (\S{257,}) took a second on 5 MB.
 */
function countLinear(text: string, count: Counter): number {
  let total = 0;
  let from = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isSpace(text.charCodeAt(i))) continue;
    if (i - runStart > LONGEST_RUN) {
      if (runStart > from) total += count(text.slice(from, runStart));
      for (let at = runStart; at < i; at += LONGEST_RUN)
        total += count(text.slice(at, Math.min(i, at + LONGEST_RUN)));
      from = i;
    }
    runStart = i + 1;
  }
  if (from < text.length) total += count(from === 0 ? text : text.slice(from));
  return total;
}

export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  if (counter) {
    try {
      return countLinear(text, counter);
    } catch {
      // A tokenizer bug must not lose the spend: fall through to the rough count.
    }
  }
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Text a tally holds uncounted (read as characters / 4) before it counts it, up to its last white space. */
const TALLY_SETTLE_CHARS = 1024;

/**
 * The tokens of a text that arrives in pieces (an answer as it streams), in time linear in the text:
 * the text is counted once, a kilobyte or so at a time up to a white space, and the short tail not yet
 * counted is read as characters / 4. Counting the whole text again on every piece was quadratic: a 5 MB
 * answer in 1 KB pieces never finished. The sum differs from a count of the whole text by a token here
 * and there, and by the tail's rough count; an answer's own count is made once, over all of it
 * (`estimateTokens`), when it ends.
 */
export class TokenTally {
  private settled = 0;
  private tail = '';

  add(piece: string): void {
    this.tail += piece;
    if (this.tail.length < TALLY_SETTLE_CHARS) return;
    // Up to the last white space when it is near the end, so no word is cut in two; else all of it
    // (a long run is counted in pieces whatever happens).
    const space = Math.max(this.tail.lastIndexOf(' '), this.tail.lastIndexOf('\n'));
    const cut = space > 0 && this.tail.length - space <= LONGEST_RUN ? space : this.tail.length;
    this.settled += estimateTokens(this.tail.slice(0, cut));
    this.tail = this.tail.slice(cut);
  }

  get tokens(): number {
    return this.settled + Math.ceil(this.tail.length / CHARS_PER_TOKEN);
  }
}

/** The prompt's tokens: every message's content, plus the chat format's own tokens. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  if (messages.length === 0) return 0;
  const content = messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  return content + messages.length * TOKENS_PER_MESSAGE + TOKENS_PER_REPLY;
}
