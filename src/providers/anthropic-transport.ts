/**
 * A ChatTransport for Anthropic's native Messages API (`POST {baseURL}/messages`, streamed), a small client
 * over the injected fetch (egress) with `eventsource-parser` reading the event stream. Not Anthropic's SDK:
 * it sends eight `x-stainless-*`/User-Agent headers on every request and pulls credential-file, OIDC and
 * telemetry code into the chunk, for a protocol of eight event types.
 *
 * Sources: https://docs.anthropic.com/en/api/messages (request), https://docs.anthropic.com/en/api/messages-streaming
 * (events), https://docs.anthropic.com/en/api/errors (error types and statuses).
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import {
  alternatingTurns,
  contentText,
  hasImages,
  type ImageMediaType,
  type MessageContent,
  type PartsMessage,
} from '../shared/chat.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { redirectError } from './answer-response.ts';
import { AnthropicToolBlocks, type AnthropicToolFields, anthropicToolFields } from './anthropic-tools.ts';
import { EmptyAnswerError, errorFromStatus, ProviderError, redactKeyLike, retryAfterMs } from './errors.ts';
import { finishEvent } from './finish-reason.ts';
import { callRound, loopedPastRounds, RoundUsage } from './tool-use.ts';
import {
  type BatonRequestInit,
  type ChatEvent,
  type ChatRequest,
  type ChatTransport,
  egressContextOf,
  refuseImagesFor,
} from './transport.ts';
import { ANTHROPIC_WEB_SEARCH_TOOL, anthropicBlockCitations, anthropicDeltaCitations } from './web-search.ts';

/** The API version every request names (the only stable one; new features come as `anthropic-beta`). */
export const ANTHROPIC_VERSION = '2023-06-01';
/** Without it Anthropic answers a browser's request 401 with no CORS headers (an opaque network failure). */
export const ANTHROPIC_BROWSER_HEADER = 'anthropic-dangerous-direct-browser-access';
/**
 * `max_tokens` is required. 8192 is within the output limit of every Claude model since 3.5 (their lowest
 * is 8192) and far more than a step's answer needs; a step that hits it ends with `max_tokens`.
 */
export const DEFAULT_MAX_TOKENS = 8192;
/** The Claude 3 models (not 3.5 or later) allow at most 4096 output tokens and refuse a request for more. */
const CLAUDE_3_MAX_TOKENS = 4096;

/** `max_tokens` for a model: DEFAULT_MAX_TOKENS, or the lower limit of the Claude 3 models. */
export function maxTokensFor(model: string): number {
  return /^claude-3-(haiku|sonnet|opus)\b/.test(model) ? CLAUDE_3_MAX_TOKENS : DEFAULT_MAX_TOKENS;
}

export interface AnthropicTransportOptions {
  /**
   * The fetch every request goes through: egress, which attaches `x-api-key` for the origin. Required:
   * there is no fallback to the global fetch, so nothing can reach Anthropic around egress.
   */
  fetch: typeof fetch;
  /** `max_tokens` of every request. Default: `maxTokensFor(model)`. */
  maxTokens?: number;
}

/**
 * A content block as the Messages API takes it: text, or an image with a base64 source
 * (https://docs.anthropic.com/en/docs/build-with-claude/vision#base64-encoded-image-example).
 */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: ImageMediaType; data: string } };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  /** A string unless the turn holds an image, so a request without images is as it always was. */
  content: string | AnthropicBlock[];
}

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  stream: true;
  system?: string;
  messages: AnthropicMessage[];
  /** A searching worker's server tool (src/providers/web-search.ts); absent for an ordinary worker. */
  tools?: (typeof ANTHROPIC_WEB_SEARCH_TOOL | AnthropicToolFields['tools'][number])[];
  tool_choice?: AnthropicToolFields['tool_choice'];
}

/** A turn's content on the wire: a string unless it holds an image, else blocks in the parts' order. */
function anthropicContent(content: MessageContent): string | AnthropicBlock[] {
  if (typeof content === 'string' || !hasImages(content)) return contentText(content);
  return content.map(
    (part): AnthropicBlock =>
      part.type === 'image'
        ? { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } }
        : { type: 'text', text: part.text },
  );
}

/**
 * The request body for `messages`: system messages go to the top-level `system` field (the API has no
 * system role; it takes text only there, so a system message's parts give their text), and consecutive
 * turns of one role are joined into one, since the API expects user and assistant to alternate. `webSearch`: offer the model Anthropic's web search tool.
 */
export function anthropicRequestBody(
  model: string,
  messages: readonly PartsMessage[],
  maxTokens = maxTokensFor(model),
  webSearch = false,
): AnthropicRequestBody {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => contentText(m.content))
    .join('\n\n');
  const turns = alternatingTurns(messages.filter((m) => m.role !== 'system'));
  return {
    model,
    max_tokens: maxTokens,
    stream: true,
    ...(system ? { system } : {}),
    messages: turns.map(({ role, content }) => ({
      role: role === 'assistant' ? 'assistant' : 'user',
      content: anthropicContent(content),
    })),
    ...(webSearch ? { tools: [ANTHROPIC_WEB_SEARCH_TOOL] } : {}),
  };
}

/** Anthropic's error types (https://docs.anthropic.com/en/api/errors), with the status each comes with. */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

interface ErrorBody {
  type?: unknown;
  error?: { type?: unknown; message?: unknown };
}

/** `{type:'error', error:{type, message}}` as `"overloaded_error: Overloaded"`, scrubbed and short. */
function detailOf(body: ErrorBody | undefined, fallback: string): { type?: string; detail: string } {
  const type = typeof body?.error?.type === 'string' ? body.error.type : undefined;
  const message = typeof body?.error?.message === 'string' ? body.error.message : fallback;
  const text = redactKeyLike(message.replace(/\s+/g, ' ').trim()).slice(0, 300);
  return { ...(type ? { type } : {}), detail: type ? `${type}: ${text}` : text };
}

/**
 * A ProviderError for an Anthropic error, from an HTTP status or from an `error` event in the stream (no
 * status: the error type says which). 529 `overloaded_error` is a server error, so it is retried.
 */
export function anthropicError(
  body: ErrorBody | undefined,
  status?: number,
  headers?: Headers,
): ProviderError {
  const { type, detail } = detailOf(body, status === undefined ? 'no details' : '');
  const code = status ?? (type ? ERROR_STATUS[type] : undefined) ?? 500;
  const midAnswer = status === undefined ? ' mid-answer' : '';
  if (code === 529) {
    return new ProviderError(
      'server',
      `Anthropic is overloaded (529)${midAnswer}: ${detail || 'overloaded_error'}`,
      529,
      headers ? retryAfterMs(headers) : undefined,
    );
  }
  if (code === 403) {
    return new ProviderError(
      'forbidden',
      `Anthropic refused the request (403)${detail ? `: ${detail}` : ''}. The key may not have access to ` +
        `this model, or an admin of its Anthropic organisation has turned off API access from browsers.`,
      403,
    );
  }
  const error = errorFromStatus(code, detail, headers);
  if (status !== undefined) return error;
  // An error event in a stream that had begun: the same meaning, said as such.
  return new ProviderError(
    error.kind,
    `The provider reported an error mid-answer: ${detail}`,
    code,
    error.retryAfterMs,
  );
}

async function errorResponse(response: Response): Promise<ProviderError> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body broke off: the status alone says what happened.
  }
  let body: ErrorBody | undefined;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // A proxy's or web server's page says nothing a person needs to read in full: name it.
    const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
    const message = text.trim().startsWith('<') ? `a web page (${type}), not Anthropic's API` : text;
    body = text.trim() ? { error: { message } } : undefined;
  }
  return anthropicError(body, response.status, response.headers);
}

interface Usage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Running token counts. `input_tokens` excludes cached tokens, so the prompt is the sum of the three
 * input counts; every count in `message_delta` is cumulative, so each one replaces the one before.
 */
class UsageTotals {
  private input = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private output = 0;

  take(usage: Usage | undefined): boolean {
    if (!usage || typeof usage !== 'object') return false;
    const input = count(usage.input_tokens);
    const cacheRead = count(usage.cache_read_input_tokens);
    const cacheWrite = count(usage.cache_creation_input_tokens);
    const output = count(usage.output_tokens);
    if ([input, cacheRead, cacheWrite, output].every((n) => n === undefined)) return false;
    if (input !== undefined) this.input = input;
    if (cacheRead !== undefined) this.cacheRead = cacheRead;
    if (cacheWrite !== undefined) this.cacheWrite = cacheWrite;
    if (output !== undefined) this.output = output;
    return true;
  }

  event(): ChatEvent {
    return {
      type: 'usage',
      promptTokens: this.input + this.cacheRead + this.cacheWrite,
      completionTokens: this.output,
      ...(this.cacheRead > 0 ? { cachedPromptTokens: this.cacheRead } : {}),
    };
  }
}

/** What one parsed stream event (or one content block of a whole message) means for the step. */
interface StreamState {
  usage: UsageTotals;
  /** The round's text and `tool_use` blocks (anthropic-tools.ts). */
  blocks: AnthropicToolBlocks;
  stopReason?: string;
  stopped: boolean;
  answered: boolean;
  thought: boolean;
}

/** Events of one `data:` payload, in order. Throws a ProviderError for an `error` event. */
function* eventsOf(data: Record<string, unknown>, state: StreamState): Generator<ChatEvent> {
  switch (data.type) {
    case 'message_start': {
      const message = data.message as { usage?: Usage } | undefined;
      if (state.usage.take(message?.usage)) yield state.usage.event();
      return;
    }
    case 'content_block_start': {
      // A block may start with text already in it (the docs' blocks start empty; a proxy's may not).
      const block = data.content_block as Record<string, unknown> | undefined;
      yield* blockText(block, state);
      const tool = state.blocks.start(data.index, block);
      if (tool !== undefined) yield { type: 'tool-call', name: tool };
      return;
    }
    case 'content_block_delta': {
      const delta = data.delta as { type?: unknown; text?: unknown; thinking?: unknown } | undefined;
      state.blocks.delta(data.index, delta);
      if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text) {
        if (delta.text.trim()) state.answered = true;
        state.blocks.addText(delta.text);
        yield { type: 'delta', text: delta.text };
      } else if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string' && delta.thinking) {
        state.thought = true;
        yield { type: 'reasoning', text: delta.thinking };
      }
      // A web search citation on the text being written; signature_delta, input_json_delta (the search
      // query) and document citations: nothing a step shows.
      for (const citation of anthropicDeltaCitations(delta as Record<string, unknown> | undefined))
        yield { type: 'citation', ...citation };
      return;
    }
    case 'message_delta': {
      const delta = data.delta as { stop_reason?: unknown } | undefined;
      if (typeof delta?.stop_reason === 'string') state.stopReason = delta.stop_reason;
      if (state.usage.take(data.usage as Usage | undefined)) yield state.usage.event();
      return;
    }
    case 'message_stop':
      state.stopped = true;
      return;
    case 'error':
      throw anthropicError(data as ErrorBody);
    default:
      // `ping`, `content_block_stop`, and event types added later (the docs ask clients to ignore them).
      return;
  }
}

function* blockText(block: Record<string, unknown> | undefined, state: StreamState): Generator<ChatEvent> {
  if (block?.type === 'text' && typeof block.text === 'string' && block.text) {
    if (block.text.trim()) state.answered = true;
    state.blocks.addText(block.text);
    yield { type: 'delta', text: block.text };
  } else if (block?.type === 'thinking' && typeof block.thinking === 'string' && block.thinking) {
    state.thought = true;
    yield { type: 'reasoning', text: block.thinking };
  }
  // A web search's results, or the citations of a text block (`server_tool_use` is the query: not shown).
  for (const citation of anthropicBlockCitations(block)) yield { type: 'citation', ...citation };
}

/** Why an answer that ended properly holds no text, in Anthropic's terms. */
function emptyAnswerReason(state: StreamState, maxTokens: number): string {
  const reason = state.stopReason;
  if (reason === 'max_tokens') {
    return `The model sent no answer text: it reached max_tokens (${maxTokens}) ${
      state.thought ? 'while still thinking' : 'before writing any'
    }.`;
  }
  if (reason === 'refusal') return 'The model declined to answer (stop_reason "refusal").';
  if (reason === undefined) return 'The model sent no answer text (the message ended without a stop_reason).';
  return `The model sent no answer text (stop_reason "${redactKeyLike(reason.slice(0, 40))}").`;
}

function cancelled(): ProviderError {
  return new ProviderError('aborted', 'The request was cancelled.');
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === 'AbortError');
}

/** A 200 answer that is not an event stream: a whole `message` (a proxy that ignored `stream`), or named. */
async function* wholeMessage(response: Response, state: StreamState): AsyncGenerator<ChatEvent> {
  const text = await response.text();
  const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
  const trimmed = text.trim();
  if (trimmed.startsWith('<')) {
    throw new ProviderError(
      'unexpected-response',
      `The provider answered with a web page (${type}), not a message: check the worker's base URL ` +
        `(Anthropic's ends in /v1).`,
    );
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(trimmed) as Record<string, unknown>;
  } catch {
    throw new ProviderError(
      'unexpected-response',
      trimmed
        ? `The provider answered with ${type}, not a message: "${redactKeyLike(trimmed.slice(0, 80))}"`
        : `The provider answered 200 with an empty body (${type}): no answer text.`,
    );
  }
  if (body?.type === 'error') throw anthropicError(body as ErrorBody, response.status);
  if (body?.type !== 'message' || !Array.isArray(body.content)) {
    throw new ProviderError(
      'unexpected-response',
      `The provider answered with JSON that is not an Anthropic message (no "content"): check the worker's base URL.`,
    );
  }
  for (const block of body.content as Record<string, unknown>[]) yield* blockText(block, state);
  if (typeof body.stop_reason === 'string') state.stopReason = body.stop_reason;
  if (state.usage.take(body.usage as Usage | undefined)) yield state.usage.event();
  state.stopped = true;
}

/** Every parsed event of an event stream, then `undefined`; malformed JSON is a `stream` error. */
async function* streamEvents(response: Response, signal: AbortSignal, state: StreamState) {
  const body = response.body;
  if (!body) throw new ProviderError('stream', 'The provider answered 200 with no body.');
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(next.value.data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(
          'stream',
          `The provider sent malformed data in its "${redactKeyLike((next.value.event ?? 'message').slice(0, 40))}" event.`,
        );
      }
      // Read on to the end of the body after message_stop: egress closes the request's ledger entry there.
      if (!data || typeof data !== 'object' || state.stopped) continue;
      yield* eventsOf(data, state);
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (isAbort(error, signal)) throw cancelled();
    const message = error instanceof Error ? redactKeyLike(error.message) : String(error);
    throw new ProviderError('stream', `The answer stream broke off: ${message}`);
  } finally {
    // Stopping early (an error, the consumer's return) releases the connection.
    reader.cancel().catch(() => {});
  }
}

/** One request of a step (one round of a tool loop): its events, with what it ended on in `state`. */
async function* oneRound(
  inner: typeof fetch,
  worker: WorkerSpec,
  request: ChatRequest,
  body: AnthropicRequestBody,
  state: StreamState,
): AsyncGenerator<ChatEvent> {
  const { signal } = request;
  const init: BatonRequestInit = {
    method: 'POST',
    // The key is egress's business (`x-api-key` for this origin): none is set here.
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': ANTHROPIC_VERSION,
      [ANTHROPIC_BROWSER_HEADER]: 'true',
    },
    body: JSON.stringify(body),
    signal,
    // A redirect is reported, not followed (egress refuses to follow one anyway).
    redirect: 'manual',
    baton: egressContextOf(request, worker),
  };
  let response: Response;
  try {
    response = await inner(`${worker.baseURL.replace(/\/+$/, '')}/messages`, init);
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (isAbort(error, signal)) throw cancelled();
    const detail = error instanceof Error ? `: ${redactKeyLike(error.message)}` : '';
    throw new ProviderError('connection', `Could not reach the provider${detail}`);
  }
  const redirect = redirectError(response);
  if (redirect) {
    await response.body?.cancel().catch(() => {});
    throw redirect;
  }
  if (!response.ok) throw await errorResponse(response);

  const type = response.headers.get('content-type') ?? '';
  const events = type.includes('text/event-stream')
    ? streamEvents(response, signal, state)
    : wholeMessage(response, state);
  try {
    yield* events;
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (isAbort(error, signal)) throw cancelled();
    throw new ProviderError('stream', `The answer stream broke off: ${redactKeyLike(String(error))}`);
  }
  if (signal.aborted) throw cancelled();
  if (!state.stopped) {
    throw new ProviderError(
      'stream',
      'The answer stream ended before the answer was complete (no message_stop).',
    );
  }
}

export function createAnthropicTransport(options: AnthropicTransportOptions): ChatTransport {
  return {
    async *stream(worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
      const { signal } = request;
      if (signal.aborted) throw cancelled();
      refuseImagesFor(worker, request);
      const maxTokens = options.maxTokens ?? maxTokensFor(worker.model);
      // A step granted tools runs rounds (anthropic-tools.ts); without tools there is one, as always.
      const tools = request.tools;
      const turns: Record<string, unknown>[] = [];
      const usageSum = new RoundUsage();
      let answered = false;
      let state: StreamState;
      for (let round = 0; ; round++) {
        const body = anthropicRequestBody(
          worker.model,
          request.messages,
          maxTokens,
          worker.webSearch === true,
        );
        if (tools) {
          const fields = anthropicToolFields(tools, round < tools.maxRounds);
          body.tools = [...(body.tools ?? []), ...fields.tools];
          if (fields.tool_choice) body.tool_choice = fields.tool_choice;
          body.messages.push(...(turns as unknown as AnthropicMessage[]));
        }
        state = {
          usage: new UsageTotals(),
          blocks: new AnthropicToolBlocks(),
          stopped: false,
          answered: false,
          thought: false,
        };
        for await (const event of oneRound(options.fetch, worker, request, body, state))
          yield event.type === 'usage' ? usageSum.add(event) : event;
        answered ||= state.answered;
        const asked = state.blocks.calls();
        if (!tools || asked.length === 0 || state.stopReason !== 'tool_use') break;
        loopedPastRounds(tools, round);
        const outcomes = await callRound(tools, asked, round, signal);
        for (const { note } of outcomes) if (note) yield { type: 'tool-used', ...note };
        turns.push(...state.blocks.turns(asked, outcomes));
        usageSum.endRound();
      }
      state.answered = answered;
      if (!state.answered) throw new EmptyAnswerError(emptyAnswerReason(state, maxTokens));
      yield* finishEvent(state.stopReason);
    },
  };
}
