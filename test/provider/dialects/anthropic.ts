/**
 * The test provider's Anthropic mode: `POST /v1/messages` (streamed and whole) and `GET /v1/models` in
 * Anthropic's shape, as Anthropic's own documentation shows them:
 *   - events and their order: https://docs.anthropic.com/en/api/messages-streaming
 *   - request fields and the `message` object: https://docs.anthropic.com/en/api/messages
 *   - error bodies `{type:'error', error:{type, message}}` and their statuses: https://docs.anthropic.com/en/api/errors
 *   - the model list `{data:[{type, id, display_name, created_at}], has_more, first_id, last_id}`:
 *     https://docs.anthropic.com/en/api/models-list
 *   - browser access: a request from a page without `anthropic-dangerous-direct-browser-access: true`
 *     is answered 401 with no CORS headers, so the page sees only a network failure.
 * server.ts hands requests here (hook lines marked "Anthropic mode"); the models, their behaviours and the
 * "first N" fault counters are the server's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicAreaTokens, anthropicImageRefusal, anthropicImages } from '../images.ts';
// Functions only from server.ts (hoisted): it imports this file too, so its constants are not ready yet.
import {
  answer,
  contentText,
  countPromptTokens,
  type Latency,
  type ScriptedModel,
  tokenize,
} from '../server.ts';
import { anthropicToolMessages } from './tool-calls.ts';
import {
  offersAnthropicSearch,
  serverToolUse,
  webSearchLocation,
  webSearchToolResult,
} from './web-search.ts';

const ANTHROPIC_BROWSER_HEADER = 'anthropic-dangerous-direct-browser-access';

/** Request headers Anthropic's preflight needs to allow for our client; under `strict`, nothing else passes. */
export const ANTHROPIC_ALLOWED_HEADERS = [
  'x-api-key',
  'anthropic-version',
  ANTHROPIC_BROWSER_HEADER,
  'anthropic-beta',
  'content-type',
  'accept',
] as const;

/** Anthropic's faults, by model id `fault:<kind>` / `fault:<kind>x<N>` or the `x-test-fault` header. */
export const ANTHROPIC_FAULT_KINDS = [
  '400',
  '401',
  '403',
  '404',
  '429',
  '500',
  '529',
  'overloaded', // streamed: the first token, then an `error` event (overloaded_error), then the end
  'cut', // streamed: half the tokens, then the socket is destroyed (no message_stop)
  'stall', // streamed: message_start, then silence
  'malformed', // streamed: after the first token a data line that is not JSON
  'thinking-only', // streamed: a thinking block, then stop_reason max_tokens with no text
] as const;
export type AnthropicFaultKind = (typeof ANTHROPIC_FAULT_KINDS)[number];

export interface AnthropicFault {
  kind: AnthropicFaultKind;
  times?: number;
}

export function parseAnthropicFault(spec: string): AnthropicFault | undefined {
  const match = /^(\d{3}|[a-z][a-z-]*?)(?:x(\d+))?$/.exec(spec.trim());
  const kind = match?.[1] as AnthropicFaultKind | undefined;
  if (!match || !kind || !ANTHROPIC_FAULT_KINDS.includes(kind)) return undefined;
  return match[2] === undefined ? { kind } : { kind, times: Number(match[2]) };
}

/** What the server lends this mode. */
export interface AnthropicContext {
  /** The server's model lookup (registered models, `fixed:` ids); `fault:` ids are read here. */
  model(id: string): ScriptedModel | undefined;
  /** Every model id the server lists. */
  modelIds(): string[];
  /** Counts a "first N" fault against its budget: the fault while it lasts, else undefined. */
  activeFault(key: string, fault: AnthropicFault | undefined): AnthropicFault | undefined;
  /** Access-Control-* and CORP headers for a request with an Origin (never sent on the opt-in 401). */
  corsHeaders(req: IncomingMessage): Record<string, string>;
  /** The key `x-api-key` must carry, if any. */
  apiKey?: string;
  /** Retry-After of the 429 fault. */
  retryAfterMs: number;
}

interface AnthropicError {
  type: string;
  message: string;
}

/** Statuses and messages as Anthropic's errors page lists them. */
const FAULT_ERRORS: Record<string, { status: number; error: (model: string) => AnthropicError }> = {
  '400': {
    status: 400,
    error: () => ({ type: 'invalid_request_error', message: 'messages: at least one message is required' }),
  },
  '401': { status: 401, error: () => ({ type: 'authentication_error', message: 'invalid x-api-key' }) },
  '403': {
    status: 403,
    error: () => ({
      type: 'permission_error',
      message: 'Your API key does not have permission to use the specified resource.',
    }),
  },
  '404': { status: 404, error: (model) => ({ type: 'not_found_error', message: `model: ${model}` }) },
  '429': {
    status: 429,
    error: () => ({
      type: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit.',
    }),
  },
  '500': { status: 500, error: () => ({ type: 'api_error', message: 'Internal server error' }) },
  '529': { status: 529, error: () => ({ type: 'overloaded_error', message: 'Overloaded' }) },
};

/** The fields the Messages API documents; it refuses any other ("Extra inputs are not permitted"). */
const KNOWN_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stream',
  'metadata',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'thinking',
  'tools',
  'tool_choice',
  'service_tier',
  'container',
  'mcp_servers',
]);

/** The thought a request with `thinking: {type:'enabled'}` gets before its answer. */
export const TEST_THINKING = 'Let me think about this step by step.';

const sleep = (ms: number) =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

function displayName(id: string): string {
  return id.replace(/^./, (c) => c.toUpperCase());
}

/** Whether a request is Anthropic's: its own path, or a model list asked for with `anthropic-version`. */
export function isAnthropicRequest(path: string, headerNames: readonly string[]): boolean {
  const route = path.split('?')[0];
  return route === '/v1/messages' || (route === '/v1/models' && headerNames.includes('anthropic-version'));
}

export function anthropicMode(ctx: AnthropicContext) {
  let nextId = 1;

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: unknown,
    extra: Record<string, string> = {},
  ) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...ctx.corsHeaders(req),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      'request-id': `req_test${nextId++}`,
      ...extra,
    });
    res.end(text);
  }

  const fail = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    error: AnthropicError,
    extra?: Record<string, string>,
  ) => send(req, res, status, { type: 'error', error, request_id: `req_test${nextId}` }, extra);

  function models(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const ids = ctx.modelIds();
    const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? 20) || 20));
    const after = query.get('after_id');
    const start = after ? ids.indexOf(after) + 1 : 0;
    const page = ids.slice(start, start + limit);
    send(req, res, 200, {
      data: page.map((id) => ({
        type: 'model',
        id,
        display_name: displayName(id),
        created_at: '2025-02-19T00:00:00Z',
      })),
      has_more: start + limit < ids.length,
      first_id: page[0] ?? null,
      last_id: page.at(-1) ?? null,
    });
  }

  async function messages(req: IncomingMessage, res: ServerResponse, body: unknown, headers: Headers) {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      return fail(req, res, 400, {
        type: 'invalid_request_error',
        message: 'There was an issue with the request body: not JSON.',
      });
    }
    const request = body as Record<string, unknown>;
    const extra = Object.keys(request).find((key) => !KNOWN_FIELDS.has(key));
    if (extra) {
      return fail(req, res, 400, {
        type: 'invalid_request_error',
        message: `${extra}: Extra inputs are not permitted`,
      });
    }
    if (typeof request.model !== 'string' || !request.model) {
      return fail(req, res, 400, { type: 'invalid_request_error', message: 'model: Field required' });
    }
    if (!Number.isInteger(request.max_tokens) || (request.max_tokens as number) < 1) {
      return fail(req, res, 400, { type: 'invalid_request_error', message: 'max_tokens: Field required' });
    }
    const turns = request.messages;
    if (!Array.isArray(turns) || turns.length === 0) {
      return fail(req, res, 400, FAULT_ERRORS['400']!.error(''));
    }
    const system = (turns as { role?: unknown }[]).find((m) => m.role !== 'user' && m.role !== 'assistant');
    if (system) {
      return fail(req, res, 400, {
        type: 'invalid_request_error',
        message: `messages: Unexpected role "${String(system.role)}". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`,
      });
    }
    const modelId = request.model;
    const spec = modelId.startsWith('fault:') ? modelId.slice('fault:'.length) : undefined;
    const byId = spec === undefined ? undefined : parseAnthropicFault(spec);
    const model = byId ? { id: modelId, behaviour: { kind: 'echo' as const } } : ctx.model(modelId);
    if (!model) return fail(req, res, 404, FAULT_ERRORS['404']!.error(modelId));
    if (model.toolCalls && request.stream === true) {
      return anthropicToolMessages(
        res,
        ctx.corsHeaders(req),
        model.toolCalls,
        request as Parameters<typeof anthropicToolMessages>[3],
      );
    }
    const headerSpec = headers.get('x-test-fault');
    const headerFault = headerSpec ? parseAnthropicFault(headerSpec) : undefined;
    const fault = headerFault
      ? ctx.activeFault(`anthropic-header:${modelId}\n${headerSpec}`, headerFault)
      : ctx.activeFault(`anthropic-model:${modelId}`, byId);

    const status = fault ? FAULT_ERRORS[fault.kind] : undefined;
    if (status) {
      const retry =
        fault?.kind === '429' ? { 'retry-after': String(Math.ceil(ctx.retryAfterMs / 1000)) } : undefined;
      return fail(req, res, status.status, status.error(modelId), retry);
    }

    const messages = turns as { role: string; content: unknown }[];
    const images = anthropicImages(messages);
    const refused = anthropicImageRefusal(images, model.textOnly === true);
    if (refused) return fail(req, res, 400, { type: 'invalid_request_error', message: refused });
    let tokens = fault?.kind === 'thinking-only' ? [] : tokenize(answer(model.behaviour, messages));
    let stopReason = fault?.kind === 'thinking-only' ? 'max_tokens' : 'end_turn';
    const limit = request.max_tokens as number;
    // The request's `max_tokens`, or the model's own limit (ScriptedModel.outputLimit): `stop_reason:
    // "max_tokens"` (https://docs.anthropic.com/en/api/handling-stop-reasons).
    const own = model.outputLimit;
    if (tokens.length > limit) {
      tokens = tokens.slice(0, limit);
      stopReason = 'max_tokens';
    } else if (own && tokens.length > own.tokens) {
      tokens = tokens.slice(0, own.tokens);
      stopReason = own.reason ?? 'max_tokens';
    }
    const thinking =
      fault?.kind === 'thinking-only' ||
      (request.thinking as { type?: unknown } | undefined)?.type === 'enabled'
        ? tokenize(TEST_THINKING)
        : [];
    // Offered the web search tool, a model that searches does (test/provider/dialects/web-search.ts).
    const sources = offersAnthropicSearch(request) ? model.search?.sources : undefined;
    const query = contentText(messages.filter((m) => m.role === 'user').at(-1)?.content);
    const toolId = `srvtoolu_test${nextId}`;
    const citations = (sources ?? []).map((source) => webSearchLocation(source, tokens.join('')));
    const searchUsage = sources ? { server_tool_use: { web_search_requests: 1 } } : {};
    const inputTokens =
      countPromptTokens(messages) +
      tokenize(contentText(request.system)).length +
      images.reduce((sum, { image }) => sum + anthropicAreaTokens(image ?? {}), 0);
    const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const id = `msg_test${nextId++}`;
    const latency: Latency = model.latency ?? { firstTokenMs: 0, perTokenMs: 0 };
    const outputTokens = tokens.length + thinking.length;

    if (request.stream !== true) {
      await sleep(latency.firstTokenMs + latency.perTokenMs * Math.max(0, tokens.length - 1));
      return send(req, res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model: modelId,
        content: [
          ...(thinking.length ? [{ type: 'thinking', thinking: thinking.join(''), signature: 'sig' }] : []),
          ...(sources ? [serverToolUse(toolId, query), webSearchToolResult(toolId, sources)] : []),
          ...(tokens.length
            ? [{ type: 'text', text: tokens.join(''), ...(sources ? { citations } : {}) }]
            : []),
        ],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...usage, output_tokens: outputTokens, ...searchUsage },
      });
    }

    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.writeHead(200, {
      ...ctx.corsHeaders(req),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': `req_test${nextId++}`,
    });
    if (latency.firstTokenMs > 0) res.flushHeaders();
    const event = (type: string, data: Record<string, unknown>) => {
      if (!closed) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    const cut = () => {
      const socket = res.socket;
      if (socket) socket.write('', () => socket.destroy());
    };

    event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        content: [],
        model: modelId,
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    if (fault?.kind === 'stall') return;
    await sleep(latency.firstTokenMs);
    let index = 0;
    if (thinking.length) {
      event('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
      for (const piece of thinking)
        event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      event('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
      });
      event('content_block_stop', { index });
      index++;
    }
    if (sources) {
      event('content_block_start', { index, content_block: serverToolUse(toolId) });
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify({ query }) },
      });
      event('content_block_stop', { index });
      index++;
      event('content_block_start', { index, content_block: webSearchToolResult(toolId, sources) });
      event('content_block_stop', { index });
      index++;
    }
    if (tokens.length) {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('ping', {});
      const cutAt = fault?.kind === 'cut' ? Math.max(1, Math.floor(tokens.length / 2)) : Infinity;
      for (let i = 0; i < tokens.length; i++) {
        if (i > 0 && latency.perTokenMs > 0) await sleep(latency.perTokenMs);
        if (closed) return;
        if (i >= cutAt) return cut();
        event('content_block_delta', { index, delta: { type: 'text_delta', text: tokens[i] } });
        if (i === 0 && fault?.kind === 'malformed')
          res.write('event: content_block_delta\ndata: {"type": "content_blo\n\n');
        if (i === 0 && fault?.kind === 'overloaded') {
          event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
          res.end();
          return;
        }
      }
      if (fault?.kind === 'cut') return cut();
      for (const citation of citations)
        event('content_block_delta', { index, delta: { type: 'citations_delta', citation } });
      event('content_block_stop', { index });
    }
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens, ...searchUsage },
    });
    event('message_stop', {});
    res.end();
  }

  return {
    /**
     * Answers an Anthropic request (see isAnthropicRequest). A page's request without the opt-in header
     * gets Anthropic's 401 with no CORS headers at all.
     */
    async handle(req: IncomingMessage, res: ServerResponse, path: string, body: unknown): Promise<void> {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      if (headers.has('origin') && headers.get(ANTHROPIC_BROWSER_HEADER) !== 'true') {
        const text = JSON.stringify({
          type: 'error',
          error: {
            type: 'authentication_error',
            message: `CORS requests must set '${ANTHROPIC_BROWSER_HEADER}' header`,
          },
        });
        res.writeHead(401, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        });
        res.end(text);
        return;
      }
      if (!headers.has('anthropic-version')) {
        return fail(req, res, 400, {
          type: 'invalid_request_error',
          message: 'anthropic-version: header is required',
        });
      }
      if (ctx.apiKey !== undefined) {
        const key = headers.get('x-api-key');
        if (key !== ctx.apiKey) {
          return fail(req, res, 401, {
            type: 'authentication_error',
            message: key === null ? 'x-api-key header is required' : 'invalid x-api-key',
          });
        }
      }
      const url = new URL(path, 'http://provider');
      if (url.pathname === '/v1/models' && req.method === 'GET') return models(req, res, url.searchParams);
      if (url.pathname === '/v1/messages' && req.method === 'POST') return messages(req, res, body, headers);
      return fail(req, res, 405, {
        type: 'invalid_request_error',
        message: `Method ${req.method} not allowed`,
      });
    },
  };
}
