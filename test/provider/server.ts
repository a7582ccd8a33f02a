/**
 * A local OpenAI-compatible provider for tests and demos: a real HTTP server on 127.0.0.1 that speaks
 * `POST /v1/chat/completions` (JSON and SSE) and `GET /v1/models`, with scripted models, latency,
 * fault injection, CORS as strict as the strictest real providers, and a record of every request.
 * See test/provider/README.md for the model ids and fault names.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANTHROPIC_ALLOWED_HEADERS, anthropicMode, isAnthropicRequest } from './dialects/anthropic.ts';
import { type DialectMode, wireDialect } from './dialects/index.ts';
import { openaiToolChat, type ToolCallScript } from './dialects/tool-calls.ts';
import { chatSearch, ONLINE_SUFFIX, type SearchSource, urlCitations } from './dialects/web-search.ts';
import {
  anthropicImages,
  describeImages,
  openaiImageRefusal,
  openaiImages,
  openaiTileTokens,
} from './images.ts';

/** `off`: a server that knows nothing of browsers (LM Studio without `--cors`): no CORS or CORP headers. */
export type CorsMode = 'strict' | 'anthropic' | 'open' | 'off';

export type Behaviour =
  | { kind: 'echo' }
  | { kind: 'transform'; fn: (question: string) => string }
  | { kind: 'table'; answers: Record<string, string>; fallback?: string }
  | { kind: 'fixed'; text: string }
  /** The answer from the whole request body (e.g. a planner that reads `response_format`: planner-model.ts). */
  | { kind: 'request'; fn: (body: Record<string, unknown>) => string }
  /** Says what images it was sent: format, size, bytes and hash of each (images.ts `describeImages`). */
  | { kind: 'images' };

export interface Latency {
  /** Delay before the first content token (headers are sent at once, as real providers do). */
  firstTokenMs: number;
  /** Delay between two content tokens. */
  perTokenMs: number;
  /**
   * Once the content streamed satisfies this, the rest waits for `hurry()`: a test looks at the page mid-stream
   * however slow the machine, with no time to guess.
   */
  holdWhen?: (sent: string) => boolean;
}

/** Faults that answer with an HTTP error status and an OpenAI-shaped error body. */
type StatusFault = '401' | '403' | '404' | '429' | '500' | '503';

export type FaultKind =
  | StatusFault
  | 'cut'
  | 'stall'
  | 'malformed'
  // Redirects: to the same path under `/moved`, which answers normally (a client that follows it succeeds).
  | '302'
  | '307'
  // Non-answers: what a wrong base URL, a proxy or a half-compatible server sends with status 200.
  | 'html' // a web page (text/html)
  | 'html-as-sse' // the same page labelled text/event-stream
  | 'no-choices' // JSON with no `choices` (`{"object":"list","data":[]}`)
  | 'ignore-stream' // a valid JSON chat.completion even when `stream: true` was asked for
  // Empty answers, streamed: a client must not take them for an answer.
  | 'empty-done' // only `data: [DONE]`
  | 'empty-finish' // the role chunk, then a chunk with empty content and `finish_reason: "stop"`, then [DONE]
  | 'empty-no-choices'; // chunks whose `choices` is missing or empty (usage only), then [DONE]

export const FAULT_KINDS: readonly FaultKind[] = [
  '401',
  '403',
  '404',
  '429',
  '500',
  '503',
  'cut',
  'stall',
  'malformed',
  '302',
  '307',
  'html',
  'html-as-sse',
  'no-choices',
  'ignore-stream',
  'empty-done',
  'empty-finish',
  'empty-no-choices',
];

const STATUS_FAULTS: readonly string[] = ['401', '403', '404', '429', '500', '503'];
const isStatusFault = (kind: FaultKind): kind is StatusFault => STATUS_FAULTS.includes(kind);

/** The page the `html` faults send: what a login wall or a web server's front page looks like. */
export const FAULT_HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome</h1></body></html>\n';

export interface Fault {
  kind: FaultKind;
  /** Fail only the first `times` requests, then answer normally (retry-then-succeed). Default: always. */
  times?: number;
  /** For 429 (and 503): sent as `retry-after-ms`, and as `retry-after` in whole seconds (rounded up). */
  retryAfterMs?: number;
}

export interface ScriptedModel {
  id: string;
  behaviour: Behaviour;
  latency?: Latency;
  fault?: Fault;
  /** A reasoning model: this thinking is streamed (in the dialect's reasoning field) before the answer. */
  reasoning?: { text: string; perTokenMs?: number };
  /**
   * A model that searches the web: these pages are its sources, sent where its dialect documents them when
   * it searches (test/provider/dialects/web-search.ts says when it does, and what is refused).
   */
  search?: { sources: readonly SearchSource[] };
  /** Declared text-only: a request with an image is refused as the provider refuses it (images.ts). */
  textOnly?: boolean;
  /** A model that calls tools when offered some, as scripted (dialects/tool-calls.ts). */
  toolCalls?: ToolCallScript;
  /**
   * The model's own output limit: an answer longer than `tokens` stops there, ending with the dialect's
   * length reason (`WireDialect.lengthReason`; Anthropic's `max_tokens`), or `reason` when given (Mistral's
   * `model_length`, a gateway passing Gemini's `MAX_TOKENS` through).
   */
  outputLimit?: { tokens: number; reason?: string };
}

export interface ProviderOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Extra models; a model with the id of a built-in replaces it. */
  models?: ScriptedModel[];
  /** Default 'strict'. */
  cors?: CorsMode;
  /** When set, chat and model requests need `Authorization: Bearer <key>` (or `x-api-key`), else 401. */
  apiKey?: string;
  /** Default Retry-After for 429/503 faults that do not give their own. Default 1000 ms. */
  retryAfterMs?: number;
  /** Speak as this provider's OpenAI-compatible API does (test/provider/dialects/). Default 'openai'. */
  dialect?: DialectMode;
  /**
   * `never`: no `usage` anywhere, asked for or not (many local and proxy servers; a stream cut short
   * never gets to it either), so a client must count the tokens itself. Default: as OpenAI does.
   */
  usage?: 'openai' | 'never';
}

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; `undefined` when there is no body. */
  body: unknown;
  /** `Date.now()` when the request arrived. */
  time: number;
}

export interface TestProvider {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url + '/v1'`: what an OpenAI client takes as its base URL. */
  baseURL: string;
  port: number;
  /** Every request in arrival order, preflights included. The array is live. */
  requests: RecordedRequest[];
  clearRequests(): void;
  /** Adds or replaces a model, and resets its fault counter. */
  setModel(model: ScriptedModel): void;
  /** Resets every "fail the first N" counter. */
  resetFaults(): void;
  /** The answers now being sent skip the rest of their latency; later requests keep theirs. */
  hurry(): void;
  close(): Promise<void>;
}

/** Request headers a strict provider's preflight accepts (Mistral, Gemini's OpenAI endpoint, Fireworks). */
export const STRICT_ALLOWED_HEADERS = ['authorization', 'content-type', 'accept'] as const;
/** Headers the client may read from responses (so a browser client can honour Retry-After). */
export const EXPOSED_HEADERS = ['retry-after', 'retry-after-ms', 'x-request-id'] as const;
export const ANTHROPIC_BROWSER_HEADER = 'anthropic-dangerous-direct-browser-access';

/** Questions the built-in `table` model knows (keys are matched after trimming). */
export const TABLE_ANSWERS: Record<string, string> = {
  'What is 2+2?': '4',
  'What is the capital of France?': 'Paris',
  'Who wrote Hamlet?': 'William Shakespeare',
  'What colour is the sky?': 'Blue, on a clear day.',
};
export const TABLE_FALLBACK = "I don't know.";

export const BUILTIN_MODELS: readonly ScriptedModel[] = [
  { id: 'echo', behaviour: { kind: 'echo' } },
  { id: 'upper', behaviour: { kind: 'transform', fn: (s) => s.toUpperCase() } },
  { id: 'reverse', behaviour: { kind: 'transform', fn: (s) => [...s].reverse().join('') } },
  { id: 'table', behaviour: { kind: 'table', answers: TABLE_ANSWERS, fallback: TABLE_FALLBACK } },
  { id: 'slow', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 300, perTokenMs: 40 } },
];

/**
 * Models for image tests (`startProvider({ models: IMAGE_MODELS })`): `images` says what images it was
 * sent, `text-only` echoes but refuses any image as its provider would.
 */
export const IMAGE_MODELS: readonly ScriptedModel[] = [
  { id: 'images', behaviour: { kind: 'images' } },
  { id: 'text-only', behaviour: { kind: 'echo' }, textOnly: true },
];

/**
 * The tokenizer used for streaming and for usage: each token is a run of whitespace followed by a run of
 * non-whitespace (or trailing whitespace alone). `tokenize(s).join('') === s`.
 */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Text of a message's content: a string, or the text parts of an array of content parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

interface Message {
  role: string;
  content: unknown;
}

/** Prompt tokens: the tokens of every message's text, summed (no per-message overhead). */
export function countPromptTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + tokenize(contentText(m.content)).length, 0);
}

function userMessages(messages: readonly Message[]): string[] {
  return messages.filter((m) => m.role === 'user').map((m) => contentText(m.content));
}

/** The answer a behaviour gives to a conversation. */
export function answer(
  behaviour: Behaviour,
  messages: readonly Message[],
  body: Record<string, unknown> = { messages },
): string {
  const users = userMessages(messages);
  const last = users.at(-1) ?? '';
  switch (behaviour.kind) {
    case 'echo':
      return last;
    case 'transform':
      return behaviour.fn(last);
    case 'fixed':
      return behaviour.text;
    case 'request':
      return behaviour.fn(body);
    case 'images':
      return describeImages([...openaiImages(messages), ...anthropicImages(messages)]);
    case 'table': {
      // The question is the last user message; Baton sends the user's question as the first user turn
      // and may add context after it, so the first user message is tried next.
      for (const candidate of [last, users[0] ?? '']) {
        const hit = behaviour.answers[candidate.trim()];
        if (hit !== undefined) return hit;
      }
      return behaviour.fallback ?? TABLE_FALLBACK;
    }
  }
}

/** Parses `429`, `429x2` (fail twice, then succeed), `cut`, ... Returns undefined for anything else. */
export function parseFault(spec: string): Fault | undefined {
  const match = /^(\d{3}|[a-z][a-z-]*?)(?:x(\d+))?$/.exec(spec.trim());
  if (!match) return undefined;
  const kind = match[1] as FaultKind;
  if (!FAULT_KINDS.includes(kind)) return undefined;
  return match[2] === undefined ? { kind } : { kind, times: Number(match[2]) };
}

/** Resolves a model id: registered models first, then `fixed:<text>` and `fault:<spec>` patterns. */
function resolveModel(models: Map<string, ScriptedModel>, id: string): ScriptedModel | undefined {
  const known = models.get(id);
  if (known) return known;
  if (id.startsWith('fixed:')) return { id, behaviour: { kind: 'fixed', text: id.slice('fixed:'.length) } };
  if (id.startsWith('fault:')) {
    const fault = parseFault(id.slice('fault:'.length));
    if (fault) return { id, behaviour: { kind: 'echo' }, fault };
  }
  return undefined;
}

type ErrorBody = { message: string; type: string; code: string | null; param?: string | null };

const FAULT_ERRORS: Record<StatusFault, (model: string) => ErrorBody> = {
  '401': () => ({
    message: 'Incorrect API key provided. You can find your API key in your account settings.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    param: null,
  }),
  '403': () => ({
    message: 'You are not allowed to access this model with this key.',
    type: 'permission_error',
    code: 'model_not_allowed',
    param: null,
  }),
  '404': (model) => ({
    message: `The model \`${model}\` does not exist or you do not have access to it.`,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: null,
  }),
  '429': (model) => ({
    message: `Rate limit reached for ${model} on requests per min (RPM). Please try again later.`,
    type: 'requests',
    code: 'rate_limit_exceeded',
    param: null,
  }),
  '500': () => ({
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    code: null,
    param: null,
  }),
  '503': () => ({
    message: 'The engine is currently overloaded, please try again later.',
    type: 'server_error',
    code: null,
    param: null,
  }),
};

/** Drops the connection once what was written has left, so the client sees the partial answer, then EOF. */
function cut(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.write('', () => socket.destroy());
}

/**
 * One answer's waits, which `hurry()` ends: a test that has seen what it needs of a slow stream (it was
 * still streaming while the page was looked at) then gets the rest at once instead of waiting it out.
 */
function pacer(waiting: Set<() => void>) {
  let hurried = false;
  /** Resolves after `ms`; at once (no timer turn) when `ms` is 0, so zero-latency models add no delay. */
  const wait = (ms: number): Promise<void> =>
    hurried || ms <= 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiting.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, ms);
          waiting.add(wake);
        });
  return {
    sleep: wait,
    /**
     * Sleeps until `start + ms`: token i of a stream is due at a fixed time from its first, so a timer that
     * fires late (a loaded machine) does not push every later token back. A stream's length is then what its
     * latency says, and benchmarks that compare two runs of it are not comparing timer drift.
     */
    sleepUntil: (start: number, ms: number) => wait(start + ms - performance.now()),
    /** Waits for `hurry()` alone (no timer: a test that never hurries leaves nothing running). */
    hold: (): Promise<void> =>
      hurried
        ? Promise.resolve()
        : new Promise((resolve) => {
            const wake = () => {
              waiting.delete(wake);
              resolve();
            };
            waiting.add(wake);
          }),
    hurry: () => {
      hurried = true;
    },
  };
}

export async function startProvider(options: ProviderOptions = {}): Promise<TestProvider> {
  const cors: CorsMode = options.cors ?? 'strict';
  const defaultRetryAfterMs = options.retryAfterMs ?? 1000;
  const wire = wireDialect(options.dialect);
  const models = new Map<string, ScriptedModel>();
  for (const m of [...BUILTIN_MODELS, ...(options.models ?? [])]) models.set(m.id, m);
  const requests: RecordedRequest[] = [];
  /** How many times each fault key has failed so far (for `times`). */
  const faultCounts = new Map<string, number>();
  let nextId = 1;
  /** The answers now being sent, for `hurry()`, and the wake-ups of their pending waits. */
  const inFlight = new Set<ReturnType<typeof pacer>>();
  const waiting = new Set<() => void>();

  function corsHeaders(req: IncomingMessage): Record<string, string> {
    if (cors === 'off') return {};
    const origin = req.headers.origin;
    const headers: Record<string, string> = { 'cross-origin-resource-policy': 'cross-origin' };
    if (origin) {
      headers['access-control-allow-origin'] = origin;
      headers.vary = 'Origin';
      headers['access-control-expose-headers'] = EXPOSED_HEADERS.join(', ');
    }
    return headers;
  }

  function sendJson(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: unknown,
    extra: Record<string, string> = {},
  ) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...corsHeaders(req),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      'x-request-id': `req_${nextId++}`,
      ...extra,
    });
    res.end(text);
  }

  function sendError(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    error: ErrorBody,
    extra?: Record<string, string>,
  ) {
    sendJson(req, res, status, wire.errorBody(status, error), extra);
  }

  function preflight(req: IncomingMessage, res: ServerResponse) {
    const origin = req.headers.origin;
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const method = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
    // Anthropic mode: its own requests get its preflight's header list.
    const anthropicPreflight = isAnthropicRequest(req.url ?? '/', requested);
    const allowed: readonly string[] = anthropicPreflight
      ? ANTHROPIC_ALLOWED_HEADERS
      : STRICT_ALLOWED_HEADERS;
    // Strict providers answer a preflight that asks for other headers without any Access-Control-Allow-*
    // header, so the browser rejects the request before it is sent.
    const headersOk =
      (cors !== 'strict' || requested.every((h) => allowed.includes(h))) && wire.preflightAllows(requested);
    const methodOk = ['GET', 'POST', 'OPTIONS', ''].includes(method);
    if (cors === 'off') {
      res.writeHead(404, { 'content-length': '0' });
      res.end();
      return;
    }
    if (!origin || !headersOk || !methodOk) {
      res.writeHead(403, { 'cross-origin-resource-policy': 'cross-origin', 'content-length': '0' });
      res.end();
      return;
    }
    const allowHeaders = cors === 'strict' ? allowed.join(', ') : requested.join(', ');
    res.writeHead(204, {
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      ...(allowHeaders ? { 'access-control-allow-headers': allowHeaders } : {}),
      // No caching: every request in a test gets its own preflight.
      'access-control-max-age': '0',
      vary: 'Origin, Access-Control-Request-Headers',
      'content-length': '0',
    });
    res.end();
  }

  function authorised(req: IncomingMessage): boolean {
    if (options.apiKey === undefined) return true;
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    return bearer === options.apiKey || req.headers['x-api-key'] === options.apiKey;
  }

  /** Whether this request should fail now, counting it against a "first N" budget. */
  function activeFault<F extends { times?: number }>(key: string, fault: F | undefined): F | undefined {
    if (!fault) return undefined;
    if (fault.times === undefined) return fault;
    const count = faultCounts.get(key) ?? 0;
    if (count >= fault.times) return undefined;
    faultCounts.set(key, count + 1);
    return fault;
  }

  /** `moved`: the request followed one of our redirects; it is answered without faults. */
  async function chat(req: IncomingMessage, res: ServerResponse, body: unknown, moved = false) {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      sendError(req, res, 400, {
        message:
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
        type: 'invalid_request_error',
        code: null,
        param: null,
      });
      return;
    }
    const request = body as {
      model?: unknown;
      messages?: unknown;
      stream?: unknown;
      stream_options?: { include_usage?: unknown } | null;
      max_tokens?: unknown;
      max_completion_tokens?: unknown;
    };
    if (typeof request.model !== 'string' || !request.model) {
      sendError(req, res, 400, {
        message: 'you must provide a model parameter',
        type: 'invalid_request_error',
        code: null,
        param: null,
      });
      return;
    }
    if (!Array.isArray(request.messages) || request.messages.length === 0) {
      sendError(req, res, 400, {
        message: "Missing required parameter: 'messages'.",
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'messages',
      });
      return;
    }
    const rejected = wire.rejectRequest(body as Record<string, unknown>);
    if (rejected) {
      sendJson(req, res, rejected.status, rejected.body);
      return;
    }
    const modelId = request.model;
    // OpenRouter's deprecated `:online` suffix names the model without it, searching.
    const model = resolveModel(
      models,
      wire.mode === 'openrouter' && modelId.endsWith(ONLINE_SUFFIX)
        ? modelId.slice(0, -ONLINE_SUFFIX.length)
        : modelId,
    );
    if (!model) {
      sendError(req, res, 404, FAULT_ERRORS['404'](modelId));
      return;
    }
    if (model.toolCalls && request.stream === true) {
      openaiToolChat(res, corsHeaders(req), model.toolCalls, body as Parameters<typeof openaiToolChat>[3]);
      return;
    }
    const search = chatSearch(wire.mode, body as Record<string, unknown>, model.search?.sources);
    if (search.kind === 'refused') {
      sendJson(req, res, search.status, search.body);
      return;
    }
    const annotations = () =>
      search.kind === 'searched' ? urlCitations(wire.mode, search.sources, tokens.join('')) : undefined;
    const images = openaiImages(request.messages as Message[]);
    const refusal =
      images.length === 0
        ? undefined
        : (wire.imageRefusal?.(images, body as Record<string, unknown>) ??
          openaiImageRefusal(images, model.textOnly === true));
    if (refusal) {
      const { status, ...error } = refusal;
      sendError(req, res, status, error);
      return;
    }
    const headerSpec = req.headers['x-test-fault'];
    const headerFault = typeof headerSpec === 'string' ? parseFault(headerSpec) : undefined;
    const fault = moved
      ? undefined
      : headerFault
        ? activeFault(`header:${modelId}\n${headerSpec}`, headerFault)
        : activeFault(`model:${modelId}`, model.fault);

    const messages = request.messages as Message[];
    const stream = request.stream === true;
    const sendsUsage = options.usage !== 'never';
    const wirePlan = wire.streamPlan(request.stream_options?.include_usage === true);
    // `usage: 'never'`: no usage anywhere, whatever the dialect would send.
    const plan: typeof wirePlan = sendsUsage ? wirePlan : { ...wirePlan, perChunk: 'absent', final: 'none' };
    const limit = Number(request.max_completion_tokens ?? request.max_tokens);
    let tokens =
      fault?.kind === 'empty-finish'
        ? []
        : tokenize(answer(model.behaviour, messages, request as Record<string, unknown>));
    let finishReason = 'stop';
    if (Number.isInteger(limit) && limit > 0 && tokens.length > limit) {
      tokens = tokens.slice(0, limit);
      finishReason = wire.lengthReason;
    }
    const own = model.outputLimit;
    if (own && tokens.length > own.tokens) {
      tokens = tokens.slice(0, own.tokens);
      finishReason = own.reason ?? wire.lengthReason;
    }
    const promptTokens =
      countPromptTokens(messages) + images.reduce((sum, { image }) => sum + openaiTileTokens(image ?? {}), 0);
    const thinking = fault ? [] : tokenize(model.reasoning?.text ?? '');
    const completionTokens = tokens.length + thinking.length;
    const baseUsage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const usage = { ...baseUsage, ...wire.usageExtras(baseUsage, thinking.length) };
    /** The usage after `n` completion tokens, for providers that send a running total on every chunk. */
    const usageSoFar = (n: number) => ({
      prompt_tokens: promptTokens,
      completion_tokens: n,
      total_tokens: promptTokens + n,
    });
    const id = `chatcmpl-test${nextId++}`;
    const created = Math.floor(Date.now() / 1000);
    const latency = model.latency ?? { firstTokenMs: 0, perTokenMs: 0 };

    if (fault && isStatusFault(fault.kind)) {
      const extra: Record<string, string> = {};
      if (fault.kind === '429' || fault.kind === '503') {
        const ms = fault.retryAfterMs ?? defaultRetryAfterMs;
        extra['retry-after-ms'] = String(ms);
        extra['retry-after'] = String(Math.ceil(ms / 1000));
      }
      sendError(req, res, Number(fault.kind), FAULT_ERRORS[fault.kind](modelId), extra);
      return;
    }

    let closed = false;
    const paced = pacer(waiting);
    const { sleep, sleepUntil, hold } = paced;
    inFlight.add(paced);
    res.on('close', () => {
      closed = true;
      inFlight.delete(paced);
    });

    const full = () => ({
      id,
      object: 'chat.completion',
      created,
      model: modelId,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: tokens.join(''),
            refusal: null,
            ...(search.kind === 'searched' ? { annotations: annotations() } : {}),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      ...(sendsUsage ? { usage } : {}),
    });

    if (fault?.kind === '302' || fault?.kind === '307') {
      res.writeHead(Number(fault.kind), {
        ...corsHeaders(req),
        location: `${url}/moved${req.url ?? ''}`,
        'content-length': '0',
      });
      res.end();
      return;
    }
    if (fault?.kind === 'html' || fault?.kind === 'html-as-sse') {
      res.writeHead(200, {
        ...corsHeaders(req),
        'content-type': fault.kind === 'html' ? 'text/html; charset=utf-8' : 'text/event-stream',
        'content-length': String(Buffer.byteLength(FAULT_HTML_PAGE)),
      });
      res.end(FAULT_HTML_PAGE);
      return;
    }
    if (fault?.kind === 'no-choices') {
      sendJson(req, res, 200, { object: 'list', data: [] });
      return;
    }
    if (fault?.kind === 'ignore-stream') {
      sendJson(req, res, 200, full());
      return;
    }

    if (!stream) {
      if (fault?.kind === 'stall') {
        res.writeHead(200, { ...corsHeaders(req), 'content-type': 'application/json' });
        res.flushHeaders();
        return; // never answers; the client must time out
      }
      await sleep(latency.firstTokenMs + latency.perTokenMs * Math.max(0, tokens.length - 1));
      if (closed) return;
      const completion = full();
      if (fault?.kind === 'malformed') {
        res.writeHead(200, { ...corsHeaders(req), 'content-type': 'application/json' });
        res.end(JSON.stringify(completion).slice(0, 40));
        return;
      }
      if (fault?.kind === 'cut') {
        res.writeHead(200, { ...corsHeaders(req), 'content-type': 'application/json' });
        res.write(JSON.stringify(completion).slice(0, 40));
        return cut(res);
      }
      sendJson(req, res, 200, completion);
      return;
    }

    res.writeHead(200, {
      ...corsHeaders(req),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': `req_${nextId++}`,
    });
    // Headers go out at once when the first token is late, as at real providers; else with the first chunk.
    if (latency.firstTokenMs > 0) res.flushHeaders();
    const send = (data: string) => {
      if (!closed) res.write(`data: ${data}\n\n`);
    };
    // `written`: completion tokens sent so far, for a dialect that puts the running usage on every chunk.
    let written = 0;
    const chunk = (delta: Record<string, unknown>, finish: string | null, finalUsage = false) =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: modelId,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(finalUsage
          ? { usage }
          : plan.perChunk === 'null'
            ? { usage: null }
            : plan.perChunk === 'running'
              ? { usage: usageSoFar(written) }
              : {}),
        ...wire.chunkExtras(written === 0),
      });

    if (fault?.kind === 'empty-done') {
      send('[DONE]');
      res.end();
      return;
    }
    if (fault?.kind === 'empty-no-choices') {
      send(JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelId }));
      send(
        JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelId, choices: [], usage }),
      );
      send('[DONE]');
      res.end();
      return;
    }

    for (const line of plan.preamble) if (!closed) res.write(`${line}\n\n`);
    await sleep(latency.firstTokenMs);
    if (closed) return;
    send(chunk({ role: 'assistant', content: '' }, null));
    // A reasoning model thinks first: every piece of it is activity, none of it is the answer.
    let due = performance.now();
    for (let i = 0; i < thinking.length; i++) {
      if (i > 0) await sleepUntil(due, i * (model.reasoning?.perTokenMs ?? 0));
      if (closed) return;
      written++;
      send(chunk(wire.reasoningDelta(thinking[i]!), null));
    }
    if (fault?.kind === 'stall') return; // headers and the role chunk, then silence
    // A cut stream stops after about half the answer (at least one token), without [DONE].
    const cutAt = fault?.kind === 'cut' ? Math.max(1, Math.floor(tokens.length / 2)) : Infinity;
    due = performance.now();
    let held = false;
    for (let i = 0; i < tokens.length; i++) {
      if (i > 0 && latency.perTokenMs > 0) await sleepUntil(due, i * latency.perTokenMs);
      if (closed) return;
      if (i >= cutAt) return cut(res);
      written++;
      send(chunk({ content: tokens[i]! }, null));
      if (i === 0 && fault?.kind === 'malformed') send('{"id":"broken", "choices": [');
      if (latency.holdWhen && !held && latency.holdWhen(tokens.slice(0, i + 1).join(''))) {
        held = true;
        await hold();
        if (closed) return;
      }
    }
    if (fault?.kind === 'cut') return cut(res); // an answer of one token or none: cut after it
    // The sources, on a delta of their own after the text.
    if (search.kind === 'searched') send(chunk({ annotations: annotations() }, null));
    send(
      chunk(
        fault?.kind === 'empty-finish' ? { content: '' } : {},
        finishReason,
        plan.final === 'finish-chunk',
      ),
    );
    const bare = { id, object: 'chat.completion.chunk', created, model: modelId, choices: [] };
    if (plan.final === 'own-chunk') send(JSON.stringify({ ...bare, usage }));
    if (plan.trailingEmptyChunk) send(JSON.stringify(bare));
    send('[DONE]');
    res.end();
  }

  function listModels(req: IncomingMessage, res: ServerResponse) {
    const ids = [
      ...models.keys(),
      'fixed:Hello from the test provider.',
      ...FAULT_KINDS.map((kind) => `fault:${kind}`),
    ];
    sendJson(req, res, 200, {
      object: 'list',
      data: ids.map((id) => ({
        id: wire.listedId(id),
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'baton-test',
      })),
    });
  }

  const anthropic = anthropicMode({
    model: (id) => resolveModel(models, id),
    modelIds: () => [...models.keys(), 'fixed:Hello from the test provider.'],
    activeFault,
    corsHeaders,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    retryAfterMs: defaultRetryAfterMs,
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const time = Date.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    let bodyIsJson = false;
    if (text) {
      try {
        body = JSON.parse(text);
        bodyIsJson = true;
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    requests.push({ method, path, headers, body, time });

    if (method === 'OPTIONS') {
      preflight(req, res);
      return;
    }
    // Anthropic mode (test/provider/dialects/anthropic.ts).
    if (isAnthropicRequest(path, Object.keys(headers)))
      return anthropic.handle(req, res, path, bodyIsJson ? body : undefined);
    if (cors === 'anthropic' && req.headers.origin && headers[ANTHROPIC_BROWSER_HEADER] !== 'true') {
      // What Anthropic answers a browser request that did not opt in.
      sendJson(req, res, 401, {
        type: 'error',
        error: {
          type: 'authentication_error',
          message: `CORS requests must set '${ANTHROPIC_BROWSER_HEADER}' header`,
        },
      });
      return;
    }
    const requested = path.split('?')[0] ?? '/';
    // Where the 302/307 faults send a client: the same API under /moved, without faults.
    const moved = requested.startsWith('/moved/');
    const route = moved ? requested.slice('/moved'.length) : requested;
    if (route === '/v1/models' || route === '/v1/chat/completions') {
      if (!authorised(req)) {
        sendError(req, res, 401, FAULT_ERRORS['401'](''));
        return;
      }
    }
    if (route === '/v1/models' && method === 'GET') return listModels(req, res);
    if (route === '/v1/chat/completions' && method === 'POST')
      return chat(req, res, bodyIsJson ? body : undefined, moved);
    sendError(req, res, route === '/v1/models' || route === '/v1/chat/completions' ? 405 : 404, {
      message: `Invalid URL (${method} ${route})`,
      type: 'invalid_request_error',
      code: null,
      param: null,
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('test provider:', error);
      if (!res.headersSent) sendError(req, res, 500, FAULT_ERRORS['500'](''));
      else res.destroy();
    });
  });
  // Longer than any client keeps an idle socket (undici: 4 s, less its 2 s margin under a server's hint;
  // browsers: longer still), so the client, never the server, closes an idle keep-alive socket. A server
  // that closes first races a client reusing that socket: its next POST reads ECONNRESET and is retried,
  // which made a request record in the tests read "failed" at random. close() ends every socket itself.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    setModel: (model) => {
      models.set(model.id, model);
      faultCounts.delete(`model:${model.id}`);
      for (const key of [...faultCounts.keys()]) {
        if (key.startsWith(`header:${model.id}\n`)) faultCounts.delete(key);
      }
    },
    resetFaults: () => faultCounts.clear(),
    hurry: () => {
      for (const stream of inFlight) stream.hurry();
      for (const wake of [...waiting]) wake();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Stalled streams and keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
