import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import {
  anthropicRequestBody,
  createAnthropicTransport,
  DEFAULT_MAX_TOKENS,
  maxTokensFor,
} from '../../../src/providers/anthropic-transport.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { dialectOf } from '../../../src/providers/dialects.ts';
import { EmptyAnswerError, ProviderError } from '../../../src/providers/errors.ts';
import type { BatonRequestInit, ChatEvent, EgressContext } from '../../../src/providers/transport.ts';
import type { ChatMessage } from '../../../src/shared/chat.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { TEST_THINKING } from '../../provider/dialects/anthropic.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Transcripts are Anthropic's own examples, https://docs.anthropic.com/en/api/messages-streaming
// ("Basic streaming request", "Streaming request with extended thinking") and
// https://docs.anthropic.com/en/api/errors, as the API sends them (`event:` + `data:` pairs).

const KEY = 'sk-ant-unit-test-0123456789';
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({
    apiKey: KEY,
    models: [{ id: 'slow', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 0, perTokenMs: 200 } }],
  });
});
afterAll(() => provider.close());

function worker(model: string, baseURL = provider.baseURL): WorkerSpec {
  return workerSpec({
    id: 'w-claude',
    label: 'Claude',
    providerId: 'anthropic',
    baseURL,
    model,
  });
}

/** A fetch that attaches the key as egress would, and remembers each init it was given. */
function keyed(inits: BatonRequestInit[] = []): typeof fetch {
  return (input, init) => {
    inits.push(init as BatonRequestInit);
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', KEY);
    return fetch(input, { ...init, headers });
  };
}

/** A fetch that answers every request with `body` (an event stream unless told otherwise). */
function answering(body: string, status = 200, headers: Record<string, string> = {}): typeof fetch {
  return async () =>
    new Response(body, { status, headers: { 'content-type': 'text/event-stream', ...headers } });
}

const hello: ChatMessage[] = [{ role: 'user', content: 'hello there world' }];

async function collect(
  fetchImpl: typeof fetch,
  model = 'echo',
  messages = hello,
  signal = new AbortController().signal,
): Promise<ChatEvent[]> {
  const transport = createAnthropicTransport({ fetch: fetchImpl });
  const events: ChatEvent[] = [];
  for await (const event of transport.stream(worker(model), {
    messages,
    signal,
    runId: 'r1',
    stepIndex: 3,
  })) {
    events.push(event);
  }
  return events;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected the request to fail');
}

const sse = (events: [string, unknown][]) =>
  events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`).join('');

/** "Basic streaming request" from the streaming docs, word for word. */
const BASIC = `event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-6", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}

`;

/** "Streaming request with extended thinking" from the streaming docs (thinking text shortened). */
const THINKING = `event: message_start
data: {"type": "message_start", "message": {"id": "msg_01...", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\\n\\n1071 = 2 × 462 + 147"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "\\n462 = 3 × 147 + 21\\n147 = 7 × 21 + 0\\n\\nSo GCD(1071, 462) = 21"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: content_block_start
data: {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "The greatest common divisor (GCD) of 1071 and 462 is **21**."}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 1}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}}

event: message_stop
data: {"type": "message_stop"}

`;

describe('the request (anthropicRequestBody)', () => {
  it('puts system messages in the top-level system field and joins consecutive turns of one role', () => {
    const body = anthropicRequestBody('claude-sonnet-4-5', [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'The question.' },
      { role: 'user', content: 'Earlier task.' },
      { role: 'assistant', content: 'Earlier answer.' },
      { role: 'user', content: 'Your task.' },
    ]);
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_MAX_TOKENS,
      stream: true,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'The question.\n\nEarlier task.' },
        { role: 'assistant', content: 'Earlier answer.' },
        { role: 'user', content: 'Your task.' },
      ],
    });
    expect(body.messages.every((m, i) => i === 0 || m.role !== body.messages[i - 1]!.role)).toBe(true);
  });

  it('has no system field without a system message, and max_tokens within each model’s limit', () => {
    expect(anthropicRequestBody('claude-haiku-4-5', hello)).not.toHaveProperty('system');
    expect(DEFAULT_MAX_TOKENS).toBe(8192);
    expect(maxTokensFor('claude-3-haiku-20240307')).toBe(4096);
    expect(maxTokensFor('claude-3-5-haiku-latest')).toBe(8192);
    expect(maxTokensFor('claude-sonnet-4-5')).toBe(8192);
  });

  it('is what the test provider receives: native path, version, opt-in header, no OpenAI fields', async () => {
    provider.clearRequests();
    const inits: BatonRequestInit[] = [];
    const events = await collect(keyed(inits), 'echo', [{ role: 'system', content: 'You echo.' }, ...hello]);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('hello there world');
    const post = provider.requests.find((r) => r.method === 'POST')!;
    expect(post.path).toBe('/v1/messages');
    expect(post.headers['anthropic-version']).toBe('2023-06-01');
    expect(post.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(post.headers.authorization).toBeUndefined();
    expect(post.body).toEqual({
      model: 'echo',
      max_tokens: 8192,
      stream: true,
      system: 'You echo.',
      messages: [{ role: 'user', content: 'hello there world' }],
    });
    // Who the request is for travels to egress on the init; redirects are not followed.
    const context: EgressContext = {
      runId: 'r1',
      stepIndex: 3,
      workerId: 'w-claude',
      providerId: 'anthropic',
    };
    expect(inits[0]).toMatchObject({ baton: context, redirect: 'manual', method: 'POST' });
  });
});

describe('the stream (Anthropic’s documented transcripts)', () => {
  it('basic: text deltas are the answer, ping is skipped, message_delta’s output_tokens replaces', async () => {
    const events = await collect(answering(BASIC));
    expect(events).toEqual([
      { type: 'usage', promptTokens: 25, completionTokens: 1 },
      { type: 'delta', text: 'Hello' },
      { type: 'delta', text: '!' },
      { type: 'usage', promptTokens: 25, completionTokens: 15 },
      { type: 'finish', reason: 'end_turn', cut: false },
    ]);
  });

  it('extended thinking: thinking deltas are reasoning, never the answer; the signature is dropped', async () => {
    const events = await collect(answering(THINKING));
    const reasoning = events.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text);
    const answer = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    expect(reasoning.join('')).toContain('GCD(1071, 462) = 21');
    expect(answer).toEqual(['The greatest common divisor (GCD) of 1071 and 462 is **21**.']);
    expect(answer.join('')).not.toContain('Euclidean');
    expect(JSON.stringify(events)).not.toContain('EqQBCgIYAh');
    // The thinking comes first, as in the stream.
    expect(events.findIndex((e) => e.type === 'reasoning')).toBeLessThan(
      events.findIndex((e) => e.type === 'delta'),
    );
  });

  it('prompt caching: cache reads and writes are part of the prompt, reads reported as cached', async () => {
    // input_tokens counts only the tokens after the last cache breakpoint (prompt-caching docs).
    const body = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_c',
            type: 'message',
            role: 'assistant',
            content: [],
            usage: {
              input_tokens: 21,
              cache_creation_input_tokens: 188,
              cache_read_input_tokens: 1800,
              output_tokens: 1,
            },
          },
        },
      ],
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
      ],
      ['message_stop', { type: 'message_stop' }],
    ]);
    const usage = (await collect(answering(body))).filter((e) => e.type === 'usage');
    expect(usage.at(-1)).toEqual({
      type: 'usage',
      promptTokens: 2009,
      completionTokens: 4,
      cachedPromptTokens: 1800,
    });
  });

  it('ignores event types it does not know (the docs ask clients to)', async () => {
    const body = BASIC.replace(
      'event: ping',
      'event: future_event\ndata: {"type": "future_event"}\n\nevent: ping',
    );
    const events = await collect(answering(body));
    expect(events.filter((e) => e.type === 'delta')).toHaveLength(2);
  });

  it('a whole (non-streamed) message is accepted: text, thinking and usage', async () => {
    const message = {
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'Short thought.', signature: 'x' },
        { type: 'text', text: 'Hi! My name is Claude.' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 2095, output_tokens: 503 },
    };
    const events = await collect(
      answering(JSON.stringify(message), 200, { 'content-type': 'application/json' }),
    );
    expect(events).toEqual([
      { type: 'reasoning', text: 'Short thought.' },
      { type: 'delta', text: 'Hi! My name is Claude.' },
      { type: 'usage', promptTokens: 2095, completionTokens: 503 },
      { type: 'finish', reason: 'end_turn', cut: false },
    ]);
  });
});

describe('errors', () => {
  const errorBody = (type: string, message: string) =>
    JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });
  const json = { 'content-type': 'application/json' };

  it('529 overloaded_error is a retryable server error', async () => {
    const error = await failure(collect(answering(errorBody('overloaded_error', 'Overloaded'), 529, json)));
    expect(error).toMatchObject({ kind: 'server', status: 529, retryable: true });
    expect(error.message).toBe('Anthropic is overloaded (529): overloaded_error: Overloaded');
  });

  it('429 rate_limit_error keeps retry-after, and the message reaches the user', async () => {
    const error = await failure(
      collect(
        answering(
          errorBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
          429,
          {
            ...json,
            'retry-after': '7',
          },
        ),
      ),
    );
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 7000, retryable: true });
    expect(error.message).toContain('rate_limit_error: Number of request tokens has exceeded');
  });

  it('401 authentication_error is a rejected key; 403 permission_error names the org’s browser switch', async () => {
    const auth = await failure(
      collect(answering(errorBody('authentication_error', 'invalid x-api-key'), 401, json)),
    );
    expect(auth).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(auth.message).toBe('The key was rejected (401): authentication_error: invalid x-api-key');
    const forbidden = await failure(
      collect(answering(errorBody('permission_error', 'Your API key does not have permission'), 403, json)),
    );
    expect(forbidden).toMatchObject({ kind: 'forbidden', status: 403, retryable: false });
    expect(forbidden.message).toContain('permission_error: Your API key does not have permission');
    expect(forbidden.message).toContain('turned off API access from browsers');
  });

  it('an error answered with a web page names it instead of quoting its markup', async () => {
    const page = '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>nginx</body></html>';
    const error = await failure(collect(answering(page, 404, { 'content-type': 'text/html' })));
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(error.message).toBe(
      "Unknown model or endpoint (404): a web page (text/html), not Anthropic's API",
    );
  });

  it('an error body never shows a key it quotes', async () => {
    const error = await failure(
      collect(answering(errorBody('invalid_request_error', `bad key ${KEY}`), 400, json)),
    );
    expect(error.kind).toBe('bad-request');
    expect(error.message).not.toContain(KEY);
  });

  it('an error event mid-stream (overloaded_error) is retryable and says it came mid-answer', async () => {
    const body = `${BASIC.split('event: content_block_stop')[0]}event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n`;
    const transport = createAnthropicTransport({ fetch: answering(body) });
    const seen: ChatEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const e of transport.stream(worker('x'), {
          messages: hello,
          signal: new AbortController().signal,
          runId: 'r',
          stepIndex: 0,
        }))
          seen.push(e);
      })(),
    );
    expect(seen.filter((e) => e.type === 'delta')).toHaveLength(2);
    expect(error).toMatchObject({ kind: 'server', status: 529, retryable: true });
    expect(error.message).toBe('Anthropic is overloaded (529) mid-answer: overloaded_error: Overloaded');
  });

  it('a stream that ends before message_stop is a cut stream (retryable)', async () => {
    const error = await failure(collect(answering(BASIC.split('event: message_delta')[0]!)));
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
    expect(error.message).toContain('no message_stop');
  });

  it('an answer without text: max_tokens spent thinking is an empty answer that says so', async () => {
    const error = await failure(collect(keyed(), 'fault:thinking-only'));
    expect(error).toBeInstanceOf(EmptyAnswerError);
    expect(error.message).toBe(
      'The model sent no answer text: it reached max_tokens (8192) while still thinking.',
    );
  });

  it('from the test provider over HTTP: 529, 429 with retry-after, overloaded mid-stream, cut, malformed', async () => {
    expect(await failure(collect(keyed(), 'fault:529'))).toMatchObject({ kind: 'server', status: 529 });
    expect(await failure(collect(keyed(), 'fault:429'))).toMatchObject({
      kind: 'rate-limit',
      retryAfterMs: 1000,
    });
    expect(await failure(collect(keyed(), 'fault:overloaded'))).toMatchObject({
      kind: 'server',
      retryable: true,
    });
    const cut = await failure(collect(keyed(), 'fault:cut'));
    expect(cut).toMatchObject({ kind: 'stream', retryable: true });
    const malformed = await failure(collect(keyed(), 'fault:malformed'));
    expect(malformed).toMatchObject({ kind: 'stream' });
    expect(malformed.message).toContain('malformed data in its "content_block_delta" event');
    const wrongKey = await failure(collect((input, init) => fetch(input, init)));
    expect(wrongKey).toMatchObject({ kind: 'auth', status: 401 });
    expect(wrongKey.message).toContain('x-api-key header is required');
    expect(await failure(collect(keyed(), 'no-such-model'))).toMatchObject({
      kind: 'not-found',
      status: 404,
    });
  });
});

describe('cancel', () => {
  it('an aborted signal before the request sends nothing', async () => {
    provider.clearRequests();
    const controller = new AbortController();
    controller.abort();
    expect(await failure(collect(keyed(), 'echo', hello, controller.signal))).toMatchObject({
      kind: 'aborted',
    });
    expect(provider.requests).toEqual([]);
  });

  it('aborting mid-answer stops the stream with kind aborted', async () => {
    const controller = new AbortController();
    const transport = createAnthropicTransport({ fetch: keyed() });
    const texts: string[] = [];
    const error = await failure(
      (async () => {
        for await (const e of transport.stream(worker('slow'), {
          messages: [{ role: 'user', content: 'one two three four five six' }],
          signal: controller.signal,
          runId: 'r',
          stepIndex: 0,
        })) {
          if (e.type === 'delta') {
            texts.push(e.text);
            controller.abort();
          }
        }
      })(),
    );
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(texts).toEqual(['one']);
  });

  it('a stalled stream is cancelled by the signal', async () => {
    const controller = new AbortController();
    const pending = collect(keyed(), 'fault:stall', hello, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await failure(pending)).toMatchObject({ kind: 'aborted' });
  });
});

describe('through egress (chatTransports picks the wire from the dialect)', () => {
  it('an Anthropic worker: native request, x-api-key from the vault, tokens in the ledger', async () => {
    provider.clearRequests();
    const ledger = await openLedger('ledger-anthropic-1');
    // The catalog's own Anthropic preset and dialect, with its base URL let off api.anthropic.com.
    const presetFor = (id: string) =>
      id === 'anthropic' ? { ...presetById('anthropic')!, baseURLEditable: true } : presetById(id);
    const egress = createEgress({
      vault: {
        keyFor: async (id, origin) => (id === 'anthropic' && origin === provider.url ? KEY : undefined),
        keysNotBoundTo: async () => [],
      },
      ledger,
      presetFor,
    });
    const spec = worker('echo');
    const transport = chatTransports(egress)(spec);
    const events: ChatEvent[] = [];
    for await (const e of transport.stream(spec, {
      messages: [{ role: 'system', content: 'Echo.' }, ...hello],
      signal: new AbortController().signal,
      runId: 'run-a',
      stepIndex: 1,
    }))
      events.push(e);
    expect(events.at(-2)).toEqual({ type: 'usage', promptTokens: 4, completionTokens: 3 });
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'end_turn', cut: false });
    const post = provider.requests.find((r) => r.method === 'POST')!;
    expect(post.path).toBe('/v1/messages');
    expect(post.headers['x-api-key']).toBe(KEY);
    expect(post.headers.authorization).toBeUndefined();
    expect(Object.keys(post.headers).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
    const [entry] = await ledger.list({ runId: 'run-a' });
    expect(entry).toMatchObject({
      purpose: 'chat',
      path: '/v1/messages',
      state: 'done',
      status: 200,
      keyAttached: true,
      promptTokens: 4,
      completionTokens: 3,
    });
  });

  it('the catalog’s Anthropic preset picks the Anthropic transport (its dialect’s wire)', () => {
    expect(dialectOf('anthropic').wire).toBe('anthropic-messages');
    expect(presetById('anthropic')).toMatchObject({
      baseURL: 'https://api.anthropic.com/v1',
      auth: 'x-api-key',
      headers: { 'anthropic-version': '2023-06-01', 'anthropic-dangerous-direct-browser-access': 'true' },
    });
  });

  it('reasoning from the test provider’s thinking block is reasoning', async () => {
    // The provider thinks when asked to; our client does not ask, so a fetch adds the field.
    const thinking: typeof fetch = (input, init) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      return keyed()(input, {
        ...init,
        body: JSON.stringify({ ...body, thinking: { type: 'enabled', budget_tokens: 1024 } }),
      });
    };
    const events = await collect(thinking);
    expect(
      events
        .filter((e) => e.type === 'reasoning')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe(TEST_THINKING);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('hello there world');
  });
});
