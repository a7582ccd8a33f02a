/**
 * The OpenAI Chat Completions wire as each dialect speaks it: the request body a step sends, and what one
 * streamed chunk holds (answer text, reasoning, usage). Pure functions, so each dialect's request and
 * stream can be checked against transcripts from the provider's own docs (test/unit/providers/).
 */
import {
  alternatingTurns,
  contentText,
  hasImages,
  type MessageContent,
  type PartsMessage,
} from '../shared/chat.ts';
import type { Dialect } from './dialects.ts';
import type { ChatEvent } from './transport.ts';
import type { OpenAISearchRequest } from './web-search.ts';

/**
 * A content part as OpenAI's Chat Completions takes it: text, or an image as a base64 `data:` URL
 * (https://platform.openai.com/docs/guides/images-vision#giving-a-model-images-as-input). Gemini's
 * OpenAI-compatible endpoint takes the same form (https://ai.google.dev/gemini-api/docs/openai#image-understanding),
 * as do Mistral, Groq, xAI and OpenRouter for their vision models. No `detail`: OpenAI's default is `auto`,
 * and a strict dialect (Mistral) would be given one field more to judge.
 */
export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

/** A message on the wire: only a user turn may hold parts (images go nowhere else). */
export type WireMessage =
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'system' | 'assistant'; content: string };

export type ChatBody = {
  model: string;
  messages: WireMessage[];
  stream: true;
  stream_options?: { include_usage: true };
} & OpenAISearchRequest['fields'];

/**
 * A message's content on the wire: a string unless it holds an image. Parts that are all text are joined
 * into one string, so a request without images is the same as before parts existed, whatever the server
 * makes of content arrays (some OpenAI-compatible servers take only strings).
 */
export function openaiContent(content: MessageContent): string | OpenAIContentPart[] {
  if (typeof content === 'string' || !hasImages(content)) return contentText(content);
  return content.map(
    (part): OpenAIContentPart =>
      part.type === 'image'
        ? { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${part.data}` } }
        : { type: 'text', text: part.text },
  );
}

/**
 * The body of a streamed chat request. `stream_options` only where the dialect asks for usage: Mistral
 * answers it with 422 `extra_forbidden`, OpenRouter deprecated it (usage always comes). Messages carry
 * `role` and `content` only: a strict provider rejects anything else (`reasoning_content` in history is a
 * 422 at Mistral, a 400 at DeepSeek), and reasoning is never sent back in any case. Every field here is one
 * each dialect documents, so a `strictFields` dialect needs nothing removed; an optional field added later
 * (a length cap, `response_format`) must be gated on the dialect (`maxTokensField`, `responseFormat`).
 * `search`: a searching worker's fields (src/providers/web-search.ts), which its dialect documents.
 * Where the dialect requires alternating turns, consecutive turns of one role go as one.
 */
export function chatBody(
  model: string,
  messages: readonly PartsMessage[],
  dialect: Dialect,
  search: OpenAISearchRequest['fields'] = {},
): ChatBody {
  const body: ChatBody = {
    model,
    messages: (dialect.alternatingTurns ? alternatingTurns(messages) : messages).map(
      (message): WireMessage =>
        message.role === 'user'
          ? { role: 'user', content: openaiContent(message.content) }
          : { role: message.role, content: message.content },
    ),
    stream: true,
    ...search,
  };
  if (dialect.streamUsage === 'ask') body.stream_options = { include_usage: true };
  return body;
}

type Usage = Extract<ChatEvent, { type: 'usage' }>;

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * A chunk's usage as an event, or undefined when it carries none. Read from `usage` (OpenAI and most), or
 * `x_groq.usage` (Groq's final chunk, https://console.groq.com/docs/api-reference#chat-create). Fields:
 * `completion_tokens_details.reasoning_tokens`; cached prompt tokens as
 * `prompt_tokens_details.cached_tokens` (OpenAI, OpenRouter, xAI) or `prompt_cache_hit_tokens` (DeepSeek,
 * https://api-docs.deepseek.com/api/create-chat-completion); `cost` in US dollars where the dialect
 * reports it (OpenRouter, https://openrouter.ai/docs/use-cases/usage-accounting).
 */
export function usageOf(chunk: unknown, dialect: Dialect): Usage | undefined {
  const c = chunk as { usage?: unknown; x_groq?: { usage?: unknown } } | null;
  const raw = (c?.usage ?? c?.x_groq?.usage) as Record<string, unknown> | null | undefined;
  if (!raw || typeof raw !== 'object') return undefined;
  // DeepSeek splits the prompt into cache hits and misses (https://api-docs.deepseek.com/guides/kv_cache);
  // their sum is the prompt where `prompt_tokens` is missing.
  const hits = count(raw.prompt_cache_hit_tokens);
  const misses = count(raw.prompt_cache_miss_tokens);
  const split = hits !== undefined && misses !== undefined ? hits + misses : undefined;
  const event: Usage = {
    type: 'usage',
    promptTokens: count(raw.prompt_tokens) ?? split ?? 0,
    completionTokens: count(raw.completion_tokens) ?? 0,
  };
  const completionDetails = raw.completion_tokens_details as Record<string, unknown> | null | undefined;
  const reasoning = count(completionDetails?.reasoning_tokens);
  if (reasoning !== undefined && reasoning > 0) event.reasoningTokens = reasoning;
  const promptDetails = raw.prompt_tokens_details as Record<string, unknown> | null | undefined;
  const cached = count(promptDetails?.cached_tokens) ?? hits;
  if (cached !== undefined && cached > 0) event.cachedPromptTokens = cached;
  const cost = count(raw.cost);
  if (dialect.reportsCost && cost !== undefined) event.cost = cost;
  return event;
}

/** What one choice's `delta` adds: answer text and reasoning text (either may be ''). */
export interface DeltaParts {
  text: string;
  reasoning: string;
}

/**
 * Splits a delta into answer and reasoning. Reasoning comes in the dialect's reasoning fields
 * (`reasoning_content`: DeepSeek https://api-docs.deepseek.com/guides/reasoning_model, xAI, vLLM;
 * `reasoning`: OpenRouter, Ollama, LM Studio), the first one present (OpenRouter may send both, with the
 * same text), or as `thinking` parts of a content array (Mistral's Magistral models:
 * `content: [{type: 'thinking', thinking: [{type: 'text', text}]}, {type: 'text', text}]`,
 * https://docs.mistral.ai/capabilities/reasoning/).
 */
export function deltaParts(delta: unknown, dialect: Dialect): DeltaParts {
  const d = (delta ?? {}) as Record<string, unknown>;
  const parts: DeltaParts = { text: '', reasoning: '' };
  if (typeof d.content === 'string') parts.text = d.content;
  else if (Array.isArray(d.content)) {
    for (const part of d.content as { type?: unknown; text?: unknown; thinking?: unknown }[]) {
      if (part?.type === 'text' && typeof part.text === 'string') parts.text += part.text;
      else if (part?.type === 'thinking') parts.reasoning += textOf(part.thinking);
    }
  }
  for (const field of dialect.reasoningFields) {
    const value = d[field];
    if (typeof value === 'string' && value) {
      parts.reasoning += value;
      break;
    }
  }
  return parts;
}

/** The text of a string or of an array of `{type: 'text', text}` parts. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('');
}
