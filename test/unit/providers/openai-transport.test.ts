import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmptyAnswerError, ProviderError } from '../../../src/providers/errors.ts';
import { createOpenAITransport, PLACEHOLDER_API_KEY } from '../../../src/providers/openai-transport.ts';
import type { BatonRequestInit, ChatEvent, EgressContext } from '../../../src/providers/transport.ts';
import type { ChatMessage } from '../../../src/shared/chat.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
let keyed: TestProvider;

beforeAll(async () => {
  provider = await startProvider({
    models: [{ id: 'slowish', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 5000, perTokenMs: 10 } }],
  });
  keyed = await startProvider({ apiKey: 'sk-test-secret-123456' });
});
afterAll(async () => {
  await provider.close();
  await keyed.close();
});

function worker(model: string, baseURL = provider.baseURL): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'W1',
    providerId: 'test',
    baseURL,
    model,
    maxConcurrency: 4,
  });
}

const hello: ChatMessage[] = [{ role: 'user', content: 'hello there world' }];

async function collect(
  transport: ReturnType<typeof createOpenAITransport>,
  spec: WorkerSpec,
  messages = hello,
  signal = new AbortController().signal,
): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of transport.stream(spec, { messages, signal, runId: 'run-1', stepIndex: 2 })) {
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

const chatPosts = (p: TestProvider) => p.requests.filter((r) => r.method === 'POST');

/** A server that answers every request with one fixed body of one content type (status 200). */
async function bare(type: string, body: string) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    base,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('createOpenAITransport', () => {
  it('streams deltas then usage, and sends a streaming request with include_usage', async () => {
    provider.clearRequests();
    const events = await collect(createOpenAITransport({ fetch: directFetch }), worker('upper'));
    expect(events).toEqual([
      { type: 'delta', text: 'HELLO' },
      { type: 'delta', text: ' THERE' },
      { type: 'delta', text: ' WORLD' },
      { type: 'usage', promptTokens: 3, completionTokens: 3 },
      { type: 'finish', reason: 'stop', cut: false },
    ]);
    const [request] = chatPosts(provider);
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body).toMatchObject({
      model: 'upper',
      stream: true,
      stream_options: { include_usage: true },
      messages: hello,
    });
  });

  it('sends no Authorization header at all when no egress fetch is injected', async () => {
    provider.clearRequests();
    await collect(createOpenAITransport({ fetch: directFetch }), worker('echo'));
    const headers = chatPosts(provider)[0]?.headers ?? {};
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(PLACEHOLDER_API_KEY);
  });

  it('lets the injected fetch attach the key and see which run and step the request is for', async () => {
    const seen: EgressContext[] = [];
    const egress: typeof fetch = (input, init) => {
      const batonInit = init as BatonRequestInit;
      if (batonInit.baton) seen.push(batonInit.baton);
      const headers = new Headers(init?.headers);
      headers.set('authorization', 'Bearer sk-test-secret-123456');
      return fetch(input, { ...init, headers });
    };
    const events = await collect(createOpenAITransport({ fetch: egress }), worker('echo', keyed.baseURL));
    expect(events.at(0)).toEqual({ type: 'delta', text: 'hello' });
    expect(seen).toEqual([{ runId: 'run-1', stepIndex: 2, workerId: 'w1', providerId: 'test' }]);
    // Without it, the same provider rejects the request: proof the key came from the egress fetch.
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker('echo', keyed.baseURL)),
    );
    expect(error.kind).toBe('auth');
  });

  it('strips the x-stainless-* headers when asked, and keeps them by default', async () => {
    provider.clearRequests();
    await collect(createOpenAITransport({ fetch: directFetch, sdkHeaders: 'strip' }), worker('echo'));
    await collect(createOpenAITransport({ fetch: directFetch }), worker('echo'));
    const [stripped, kept] = chatPosts(provider);
    expect(Object.keys(stripped?.headers ?? {}).filter((h) => h.startsWith('x-stainless-'))).toEqual([]);
    expect(Object.keys(kept?.headers ?? {}).some((h) => h.startsWith('x-stainless-'))).toBe(true);
  });

  it.each([
    ['401', 'auth', false],
    ['403', 'forbidden', false],
    ['404', 'not-found', false],
    ['500', 'server', true],
    ['503', 'server', true],
    ['cut', 'stream', true],
    ['malformed', 'stream', true],
  ] as const)('maps fault %s to kind %s (retryable: %s)', async (fault, kind, retryable) => {
    provider.clearRequests();
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker(`fault:${fault}`)),
    );
    expect(error.kind).toBe(kind);
    expect(error.retryable).toBe(retryable);
    // maxRetries is 0: the SDK never retries on its own.
    expect(chatPosts(provider)).toHaveLength(1);
  });

  it('maps an unknown model to not-found with the provider message', async () => {
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker('no-such-model')),
    );
    expect(error.kind).toBe('not-found');
    expect(error.status).toBe(404);
    expect(error.message).toContain('no-such-model');
  });

  it('reads Retry-After on 429', async () => {
    provider.setModel({
      id: 'limited',
      behaviour: { kind: 'echo' },
      fault: { kind: '429', retryAfterMs: 2500 },
    });
    const error = await failure(collect(createOpenAITransport({ fetch: directFetch }), worker('limited')));
    expect(error.kind).toBe('rate-limit');
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(2500);
    expect(error.retryable).toBe(true);
  });

  it('reports an unreachable host as a connection error', async () => {
    const closed = await startProvider();
    const base = closed.baseURL;
    await closed.close();
    const error = await failure(collect(createOpenAITransport({ fetch: directFetch }), worker('echo', base)));
    expect(error.kind).toBe('connection');
  });

  it('turns an abort during a stall into kind aborted, long before the stream would end', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker('fault:stall'), hello, controller.signal),
    );
    expect(error.kind).toBe('aborted');
    expect(error.retryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('turns an abort before the first token into kind aborted well before the model would answer', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker('slowish'), hello, controller.signal),
    );
    expect(error.kind).toBe('aborted');
    // The model's first token is 5000 ms away; the abort must not wait for it.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails at once on an already aborted signal without sending anything', async () => {
    provider.clearRequests();
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      collect(createOpenAITransport({ fetch: directFetch }), worker('echo'), hello, controller.signal),
    );
    expect(error.kind).toBe('aborted');
    expect(chatPosts(provider)).toHaveLength(0);
  });

  describe('empty answers fail, retried once', () => {
    it.each([
      ['empty-done', /no answer text.*\[DONE\]/],
      ['empty-finish', /no answer text.*finish_reason "stop"/],
      ['empty-no-choices', /no answer text.*no choices/],
    ])('%s is an EmptyAnswerError that allows one retry', async (fault, reason) => {
      const error = await failure(
        collect(createOpenAITransport({ fetch: directFetch }), worker(`fault:${fault}`)),
      );
      expect(error).toBeInstanceOf(EmptyAnswerError);
      expect(error.name).toBe('EmptyAnswerError');
      expect(error.kind).toBe('empty');
      expect(error.message).toMatch(reason);
      expect(error.retryable).toBe(true);
      expect(error.maxAttempts).toBe(2);
    });

    it('still yields the usage of an empty answer before failing (it was paid for)', async () => {
      const events: ChatEvent[] = [];
      const stream = createOpenAITransport({ fetch: directFetch }).stream(worker('fault:empty-finish'), {
        messages: hello,
        signal: new AbortController().signal,
        runId: 'r',
        stepIndex: 0,
      });
      await expect(
        (async () => {
          for await (const event of stream) events.push(event);
        })(),
      ).rejects.toBeInstanceOf(EmptyAnswerError);
      expect(events).toEqual([{ type: 'usage', promptTokens: 3, completionTokens: 0 }]);
    });
  });

  describe('non-answers are named, and not retried where retrying cannot help', () => {
    it.each([
      ['302', /redirect.*302.*\/moved\/v1\/chat\/completions/i],
      ['307', /redirect.*307.*\/moved\/v1\/chat\/completions/i],
      ['html', /web page.*text\/html.*Welcome to nginx!.*base URL/],
      ['html-as-sse', /web page.*labelled text\/event-stream.*Welcome to nginx!.*base URL/],
      ['no-choices', /JSON that is not a chat completion.*no "choices".*object, data/],
    ])('fault %s', async (fault, message) => {
      provider.clearRequests();
      const error = await failure(
        collect(createOpenAITransport({ fetch: directFetch }), worker(`fault:${fault}`)),
      );
      expect(error.kind).toBe('unexpected-response');
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('ended before the answer was complete');
      expect(error.retryable).toBe(false);
      // The redirect was not followed: nothing reached /moved.
      expect(provider.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    });

    it('accepts a whole JSON completion from a server that ignores stream: true, with its usage', async () => {
      const events = await collect(
        createOpenAITransport({ fetch: directFetch }),
        worker('fault:ignore-stream'),
      );
      expect(events).toEqual([
        { type: 'delta', text: 'hello there world' },
        { type: 'usage', promptTokens: 3, completionTokens: 3 },
        { type: 'finish', reason: 'stop', cut: false },
      ]);
    });

    it("reports a 200 JSON error body as the provider's error, scrubbed", async () => {
      const server = await bare(
        'application/json',
        JSON.stringify({ error: { message: 'overloaded, key sk-abcdef0123456789' } }),
      );
      try {
        const error = await failure(
          collect(createOpenAITransport({ fetch: directFetch }), worker('m', server.base)),
        );
        expect(error.kind).toBe('server');
        expect(error.message).toContain('overloaded');
        expect(error.message).not.toContain('sk-abcdef');
      } finally {
        await server.close();
      }
    });

    it('names a plain-text answer and quotes its start', async () => {
      const server = await bare('text/plain', 'Service temporarily in maintenance');
      try {
        const error = await failure(
          collect(createOpenAITransport({ fetch: directFetch }), worker('m', server.base)),
        );
        expect(error.kind).toBe('unexpected-response');
        expect(error.message).toMatch(/text\/plain.*"Service temporarily in maintenance"/);
      } finally {
        await server.close();
      }
    });
  });

  describe('how a stream ends, against a bare SSE server', () => {
    /** Serves one fixed SSE body for every request. */
    async function sse(body: string) {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      return {
        base,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    }
    const chunk = (content: string, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

    it('accepts [DONE] without any finish_reason', async () => {
      const server = await sse(`${chunk('Hi')}${chunk(' there')}data: [DONE]\n\n`);
      try {
        const events = await collect(createOpenAITransport({ fetch: directFetch }), worker('m', server.base));
        expect(events).toEqual([
          { type: 'delta', text: 'Hi' },
          { type: 'delta', text: ' there' },
        ]);
      } finally {
        await server.close();
      }
    });

    it('scrubs a Gemini-style key quoted in an error sent mid-stream, and leaves words alone', async () => {
      const quoted = 'AIzaSyD-0123456789abcdefghijklmn';
      const error = { error: { message: `API key not valid: ${quoted} (skipping retries)` } };
      const server = await sse(`${chunk('Hi')}data: ${JSON.stringify(error)}\n\n`);
      try {
        const failed = await failure(
          collect(createOpenAITransport({ fetch: directFetch }), worker('m', server.base)),
        );
        expect(failed.kind).toBe('server');
        expect(failed.message).not.toContain('AIzaSy');
        expect(failed.message).toContain('[redacted] (skipping retries)');
      } finally {
        await server.close();
      }
    });

    it('reports a stream that closes cleanly with neither finish_reason nor [DONE] as kind stream', async () => {
      const server = await sse(`${chunk('Hi')}${chunk(' the')}`);
      try {
        const error = await failure(
          collect(createOpenAITransport({ fetch: directFetch }), worker('m', server.base)),
        );
        expect(error.kind).toBe('stream');
        expect(error.message).toContain('ended before the answer was complete');
      } finally {
        await server.close();
      }
    });
  });
});
