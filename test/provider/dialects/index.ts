/**
 * How the test provider speaks when it imitates one provider's OpenAI-compatible API
 * (`startProvider({ dialect })`). Each behaviour is written from the provider's published docs or from
 * bodies quoted in public bug reports, cited where it is defined. `openai` is the provider's own default:
 * https://platform.openai.com/docs/api-reference/chat-streaming
 */

import type { ImageAt, Refusal } from '../images.ts';

export type DialectMode = 'openai' | 'mistral' | 'gemini' | 'openrouter' | 'xai' | 'groq' | 'deepseek';

export const DIALECT_MODES: readonly DialectMode[] = [
  'openai',
  'mistral',
  'gemini',
  'openrouter',
  'xai',
  'groq',
  'deepseek',
];

/** The OpenAI-shaped error the server would send (`{ error: ErrorBody }` by default). */
export interface ErrorBody {
  message: string;
  type: string;
  code: string | null;
  param?: string | null;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [extra: string]: unknown;
}

/** Where a stream puts its usage and what else it sends, for one request. */
export interface StreamPlan {
  /** Raw SSE lines written before the first chunk (comments such as `: OPENROUTER PROCESSING`). */
  preamble: string[];
  /** `null`: each content chunk has `usage: null` (OpenAI with include_usage); `running`: the usage so far. */
  perChunk: 'absent' | 'null' | 'running';
  /** The final usage: on a chunk of its own (`choices: []`), on the finish chunk, or nowhere. */
  final: 'own-chunk' | 'finish-chunk' | 'none';
  /** A chunk with `choices: []` and no usage after the finish chunk (xAI). */
  trailingEmptyChunk: boolean;
}

export interface WireDialect {
  mode: DialectMode;
  /** Whether a preflight asking for these (lower-cased) request headers passes. */
  preflightAllows(requested: readonly string[]): boolean;
  /** A rejection of the request body before anything is answered: status and body. */
  rejectRequest(body: Record<string, unknown>): { status: number; body: unknown } | undefined;
  /** The whole error body for an error response. */
  errorBody(status: number, error: ErrorBody): unknown;
  /** The id `/models` lists for a model. */
  listedId(id: string): string;
  /** The delta that carries a piece of reasoning. */
  reasoningDelta(text: string): Record<string, unknown>;
  /** Where usage goes; `asked`: the request had `stream_options.include_usage: true`. */
  streamPlan(asked: boolean): StreamPlan;
  /** Fields the provider adds to its final usage (cost, cache counts, reasoning counts). */
  usageExtras(usage: Usage, reasoningTokens: number): Record<string, unknown>;
  /** Fields added to every chunk (Groq's `x_groq`). */
  chunkExtras(first: boolean): Record<string, unknown>;
  /** The `finish_reason` of an answer stopped at the output limit (`max_tokens`, or the model's own). */
  lengthReason: string;
  /**
   * The provider's own refusal of a request's images, where it differs from OpenAI's (`openaiImageRefusal`,
   * which every other dialect sends in its own error shape).
   */
  imageRefusal?(images: readonly ImageAt[], body: Record<string, unknown>): Refusal | undefined;
}

const openaiPlan = (asked: boolean): StreamPlan => ({
  preamble: [],
  perChunk: asked ? 'null' : 'absent',
  final: asked ? 'own-chunk' : 'none',
  trailingEmptyChunk: false,
});

const reasoningDetails = (reasoningTokens: number) =>
  reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {};

const openai: WireDialect = {
  mode: 'openai',
  preflightAllows: () => true,
  rejectRequest: () => undefined,
  errorBody: (_status, error) => ({ error }),
  listedId: (id) => id,
  // DeepSeek's field, which vLLM and xAI share: https://api-docs.deepseek.com/guides/reasoning_model
  reasoningDelta: (text) => ({ reasoning_content: text }),
  streamPlan: openaiPlan,
  usageExtras: (_usage, reasoningTokens) => reasoningDetails(reasoningTokens),
  chunkExtras: () => ({}),
  // https://platform.openai.com/docs/api-reference/chat/object (`finish_reason`). Groq
  // (https://console.groq.com/docs/api-reference#chat-create), DeepSeek
  // (https://api-docs.deepseek.com/api/create-chat-completion), xAI
  // (https://docs.x.ai/docs/api-reference#chat-completions) and OpenRouter's normalised reasons
  // (https://openrouter.ai/docs/api-reference/overview#finish-reason) say it the same way.
  lengthReason: 'length',
};

/**
 * Mistral: fields outside its schema are a 422 `extra_forbidden` (pydantic), `stream_options` included,
 * and usage comes on the finish chunk without being asked. Body as Mistral sends it, quoted in
 * https://github.com/dnakov/anon-kode/issues/53 and https://github.com/BerriAI/litellm/issues/8978;
 * API reference: https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post
 * Its 401 is `{"message":"Unauthorized","request_id":…}` (quoted in elastic/elasticsearch#128538).
 * Reasoning (Magistral) is `thinking` parts of a content array: https://docs.mistral.ai/capabilities/reasoning/
 */
const MISTRAL_FORBIDDEN = ['stream_options', 'store', 'max_completion_tokens'] as const;
const mistral: WireDialect = {
  ...openai,
  mode: 'mistral',
  rejectRequest(body) {
    const detail: unknown[] = [];
    const extra = (loc: (string | number)[], input: unknown) =>
      detail.push({
        type: 'extra_forbidden',
        loc: ['body', ...loc],
        msg: 'Extra inputs are not permitted',
        input,
        url: 'https://errors.pydantic.dev/2.10/v/extra_forbidden',
      });
    for (const field of MISTRAL_FORBIDDEN) {
      if (!(field in body)) continue;
      const value = body[field];
      // An object is reported field by field, as Mistral does: `loc: ['body', 'stream_options', 'include_usage']`.
      if (value && typeof value === 'object' && !Array.isArray(value))
        for (const [key, inner] of Object.entries(value)) extra([field, key], inner);
      else extra([field], value);
    }
    const messages = Array.isArray(body.messages) ? body.messages : [];
    messages.forEach((m: Record<string, unknown>, i) => {
      if (m && typeof m === 'object' && 'reasoning_content' in m)
        extra(['messages', i, 'reasoning_content'], m.reasoning_content);
    });
    if (detail.length === 0) return undefined;
    return {
      status: 422,
      body: { object: 'error', message: { detail }, type: 'invalid_request_error', param: null, code: null },
    };
  },
  errorBody: (status, error) =>
    status === 401
      ? { message: 'Unauthorized', request_id: 'a580d263fb1521778782b22104efb415' }
      : { object: 'error', message: error.message, type: error.type, param: null, code: error.code },
  reasoningDelta: (text) => ({ content: [{ type: 'thinking', thinking: [{ type: 'text', text }] }] }),
  streamPlan: () => ({ preamble: [], perChunk: 'absent', final: 'finish-chunk', trailingEmptyChunk: false }),
  // `finish_reason` is one of stop, length, model_length, error, tool_calls (the API reference above):
  // `length` at `max_tokens`, `model_length` when the context window ran out (a model's `outputLimit.reason`).
  lengthReason: 'length',
};

/**
 * Gemini's OpenAI-compatible endpoint (https://ai.google.dev/gemini-api/docs/openai): a preflight that asks
 * for headers outside its allow-list fails (the SDK's `x-stainless-*`, as DESIGN.md records); with
 * include_usage every chunk carries the usage so far, with no usage chunk of its own (as
 * https://github.com/envoyproxy/ai-gateway/pull/1503 shows), so adding them up overcounts; `/models` ids
 * are `models/…`; errors are a JSON array `[{ error: { code, message, status } }]` (https://ai.google.dev/gemini-api/docs/troubleshooting).
 */
const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};
const gemini: WireDialect = {
  ...openai,
  mode: 'gemini',
  preflightAllows: (requested) => !requested.some((h) => h.startsWith('x-stainless-')),
  errorBody: (status, error) => [
    { error: { code: status, message: error.message, status: GEMINI_STATUS[status] ?? 'UNKNOWN' } },
  ],
  listedId: (id) => `models/${id}`,
  // The endpoint speaks OpenAI's words: Gemini's own `finishReason: "MAX_TOKENS"`
  // (https://ai.google.dev/api/generate-content#FinishReason) is sent as `length`.
  lengthReason: 'length',
  streamPlan: (asked) => ({
    preamble: [],
    perChunk: asked ? 'running' : 'absent',
    final: asked ? 'finish-chunk' : 'none',
    trailingEmptyChunk: false,
  }),
};

/**
 * OpenRouter (https://openrouter.ai/docs/api-reference/streaming): SSE comment lines
 * `: OPENROUTER PROCESSING` while it waits, which clients must ignore; usage always in the last message,
 * `stream_options.include_usage` deprecated (https://openrouter.ai/docs/use-cases/usage-accounting), with
 * `cost` in credits (US dollars) and cached and reasoning token counts. Reasoning in `delta.reasoning`
 * (https://openrouter.ai/docs/use-cases/reasoning-tokens). Errors `{ error: { code, message } }`.
 */
export const OPENROUTER_COMMENT = ': OPENROUTER PROCESSING';
/** What the imitation charges: $2 per million prompt tokens and $4 per million completion tokens. */
export const openrouterCost = (usage: Usage) => (usage.prompt_tokens * 2 + usage.completion_tokens * 4) / 1e6;
const openrouter: WireDialect = {
  ...openai,
  mode: 'openrouter',
  errorBody: (status, error) => ({ error: { code: status, message: error.message } }),
  reasoningDelta: (text) => ({ reasoning: text }),
  streamPlan: () => ({
    preamble: [OPENROUTER_COMMENT, OPENROUTER_COMMENT],
    perChunk: 'absent',
    final: 'own-chunk',
    trailingEmptyChunk: false,
  }),
  usageExtras: (usage, reasoningTokens) => ({
    cost: openrouterCost(usage),
    is_byok: false,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  }),
};

/**
 * xAI (https://docs.x.ai/docs/api-reference#chat-completions, https://docs.x.ai/docs/guides/streaming-response):
 * with include_usage the usage rides on the finish chunk, then one more chunk with empty `choices`;
 * reasoning models (grok-3-mini) stream `reasoning_content`.
 */
const xai: WireDialect = {
  ...openai,
  mode: 'xai',
  streamPlan: (asked) => ({
    preamble: [],
    perChunk: 'absent',
    final: asked ? 'finish-chunk' : 'none',
    trailingEmptyChunk: true,
  }),
  usageExtras: (_usage, reasoningTokens) => ({
    prompt_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0, cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens, audio_tokens: 0 },
  }),
};

/**
 * Groq (https://console.groq.com/docs/api-reference#chat-create): usage only with
 * `stream_options.include_usage`; every chunk carries `x_groq: { id }`.
 */
const groq: WireDialect = {
  ...openai,
  mode: 'groq',
  chunkExtras: () => ({ x_groq: { id: 'req_01test' } }),
};

/** DeepSeek's 400 body: `invalid_request_error` in OpenAI's shape, as its error docs say for a 400. */
const deepseekRefusal = (message: string) => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } },
});

/**
 * The first two messages of one role in a row (user or assistant; system messages are not counted), as
 * DeepSeek names them: their indices in the request's `messages`.
 */
function successiveTurns(messages: readonly Record<string, unknown>[]): [number, number] | undefined {
  let previous: number | undefined;
  for (const [i, m] of messages.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') continue;
    if (previous !== undefined && messages[previous]?.role === m.role) return [previous, i];
    previous = i;
  }
  return undefined;
}

/**
 * DeepSeek (https://api-docs.deepseek.com/api/create-chat-completion, /guides/reasoning_model,
 * /quick_start/rate_limit): `: keep-alive` comments while a request waits; reasoning in
 * `reasoning_content`; usage (when asked) with `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`;
 * `reasoning_content` sent back in messages is a 400. `deepseek-reasoner` refuses two user (or assistant)
 * messages in a row with a 400 (https://api-docs.deepseek.com/quick_start/error_codes: "400 - Invalid
 * Format ... modify your request body according to the hints in the error message"); the message is the
 * one its API sends, quoted in https://github.com/deepseek-ai/DeepSeek-R1/issues/21 and
 * https://github.com/open-webui/open-webui/issues/9266. Its multi-round guide
 * (https://api-docs.deepseek.com/guides/multi_round_chat) shows only alternating turns.
 */
export const DEEPSEEK_REASONER = 'deepseek-reasoner';
const deepseek: WireDialect = {
  ...openai,
  mode: 'deepseek',
  rejectRequest(body) {
    const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
    if (messages.some((m) => m && typeof m === 'object' && 'reasoning_content' in m))
      return deepseekRefusal(
        'The reasoning_content is an intermediate result and must not be sent back in messages.',
      );
    const successive = body.model === DEEPSEEK_REASONER ? successiveTurns(messages) : undefined;
    if (successive)
      return deepseekRefusal(
        `deepseek-reasoner does not support successive user or assistant messages (messages[${successive[0]}] ` +
          `and messages[${successive[1]}] in your input). You should interleave the user/assistant messages in the message sequence.`,
      );
    return undefined;
  },
  streamPlan: (asked) => ({ ...openaiPlan(asked), preamble: [': keep-alive'] }),
  // Its models read text only: an `image_url` part fails to deserialize, whatever the model (the body
  // quoted in https://github.com/1jehuang/jcode/issues/310).
  imageRefusal(images, body) {
    const first = images[0];
    if (!first) return undefined;
    const column = JSON.stringify(body).indexOf('"image_url"') + 1;
    return {
      status: 400,
      message: `Failed to deserialize the JSON body into the target type: messages[${first.message}]: unknown variant \`image_url\`, expected \`text\` at line 1 column ${column}`,
      type: 'invalid_request_error',
      code: 'invalid_request_error',
      param: null,
    };
  },
  usageExtras: (usage, reasoningTokens) => ({
    prompt_cache_hit_tokens: Math.floor(usage.prompt_tokens / 2),
    prompt_cache_miss_tokens: usage.prompt_tokens - Math.floor(usage.prompt_tokens / 2),
    prompt_tokens_details: { cached_tokens: Math.floor(usage.prompt_tokens / 2) },
    ...reasoningDetails(reasoningTokens),
  }),
};

const WIRES: Record<DialectMode, WireDialect> = { openai, mistral, gemini, openrouter, xai, groq, deepseek };

export function wireDialect(mode: DialectMode = 'openai'): WireDialect {
  return WIRES[mode];
}
