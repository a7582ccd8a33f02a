import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayFetch, serveFetches, WINDOW_MS } from '../../../src/shared/fetch-relay.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Both sides of egress's fetch relay, joined by a real MessageChannel, the worker side fetching from the
// test provider over real HTTP.

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({
    cors: 'off',
    models: [
      // 200 tokens a few ms apart: hundreds of network chunks in about a second.
      {
        id: 'many',
        behaviour: { kind: 'fixed', text: 'word '.repeat(200) },
        latency: { firstTokenMs: 50, perTokenMs: 4 },
      },
      // 10 tokens 2 ms apart: all of it after the first bytes arrives well within one window.
      {
        id: 'brief',
        behaviour: { kind: 'fixed', text: 'word '.repeat(10) },
        latency: { firstTokenMs: 10, perTokenMs: 2 },
      },
      {
        id: 'long',
        behaviour: { kind: 'fixed', text: 'word '.repeat(400) },
        latency: { firstTokenMs: 50, perTokenMs: 20 },
      },
    ],
  });
});
afterAll(() => provider.close());

interface Relay {
  fetch: typeof fetch;
  /** How many messages the page side received. */
  received: () => number;
  direct: string[];
  close: () => void;
}

function relay(): Relay {
  const { port1, port2 } = new MessageChannel();
  let received = 0;
  port1.addEventListener('message', () => received++);
  serveFetches(port2 as unknown as Parameters<typeof serveFetches>[0], globalThis.fetch);
  const direct: string[] = [];
  const fetchThrough = relayFetch(port1, (input, init) => {
    direct.push(String(input));
    return globalThis.fetch(input, init);
  });
  port1.start();
  port2.start();
  return {
    fetch: fetchThrough,
    received: () => received,
    direct,
    close: () => {
      port1.close();
      port2.close();
    },
  };
}

/** Runs `test` with a fresh relay, closed after it whatever happens. */
async function withRelay(test: (r: Relay) => Promise<void>): Promise<void> {
  const r = relay();
  try {
    await test(r);
  } finally {
    r.close();
  }
}

/** The worker stopped reading: 400 tokens 20 ms apart are 8 s, so had it read on, pieces would come within a second. */
async function expectNoMorePieces(r: Relay, since: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(r.received() - since).toBeLessThanOrEqual(2);
}

function chat(model: string, signal?: AbortSignal): [string, RequestInit] {
  return [
    `${provider.baseURL}/chat/completions`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
      credentials: 'omit',
      redirect: 'manual',
      mode: 'cors',
      ...(signal ? { signal } : {}),
    },
  ];
}

async function chunksOf(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

describe('fetch relay', () => {
  it('gives the same status, headers and bytes as fetch, in far fewer pieces', () =>
    withRelay(async (r) => {
      const started = performance.now();
      const relayed = await r.fetch(...chat('many'));
      const plain = await globalThis.fetch(...chat('many'));
      expect(relayed.status).toBe(200);
      expect(relayed.ok).toBe(true);
      expect(relayed.headers.get('content-type')).toBe(plain.headers.get('content-type'));
      const [relayedChunks, plainChunks] = await Promise.all([chunksOf(relayed), chunksOf(plain)]);
      const elapsed = performance.now() - started;
      const strip = (s: string) => s.replace(/"(id|created)":[^,]+,/g, '');
      expect(strip(text(relayedChunks))).toBe(strip(text(plainChunks)));
      expect(text(relayedChunks)).toContain('data: [DONE]');
      // ~1 s of tokens 4 ms apart: fetch gave about 200 pieces on an idle machine (fewer on a loaded one,
      // which joins reads, so that count is no yardstick), the relay at most one a window (WINDOW_MS) plus
      // the first bytes and the end, however long the answer took to come.
      expect(relayedChunks.length).toBeLessThanOrEqual(Math.ceil(elapsed / WINDOW_MS) + 2);
      expect(relayedChunks.length).toBeLessThan(50);
      expect(r.direct).toEqual([]);
    }));

  it('hands the bytes gathered since the last hand-over over with the end, in one message', () =>
    withRelay(async (r) => {
      const before = r.received();
      const response = await r.fetch(...chat('brief'));
      const body = await response.text();
      const plain = await (await globalThis.fetch(...chat('brief'))).text();
      const strip = (s: string) => s.replace(/"(id|created)":[^,]+,/g, '');
      expect(strip(body)).toBe(strip(plain));
      expect(body).toContain('data: [DONE]');
      // The head, the first bytes at once, then the rest of the answer and its end together.
      expect(r.received() - before).toBe(3);
    }));

  it('passes the request as sent: method, headers and body', () =>
    withRelay(async (r) => {
      const before = provider.requests.length;
      await (await r.fetch(...chat('echo'))).text();
      const seen = provider.requests.slice(before).find((q) => q.path.endsWith('/chat/completions'));
      expect(seen?.method).toBe('POST');
      expect(seen?.headers['content-type']).toBe('application/json');
      expect(seen?.body).toMatchObject({ model: 'echo', stream: true });
    }));

  it('answers an HTTP error with its status and body', () =>
    withRelay(async (r) => {
      const response = await r.fetch(...chat('fault:429'));
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).not.toBeNull();
      expect(await response.json()).toMatchObject({ error: { type: expect.any(String) } });
    }));

  it('rejects as fetch does when nothing is listening: a TypeError', () =>
    withRelay(async (r) => {
      const [, init] = chat('echo');
      const error = await r.fetch('http://127.0.0.1:9/v1/chat/completions', init).catch((e) => e);
      expect(error).toBeInstanceOf(TypeError);
    }));

  it('an abort rejects at once, mid-answer errors the body, and the worker stops reading', () =>
    withRelay(async (r) => {
      const before = await r.fetch(...chat('long', AbortSignal.abort())).catch((e) => e);
      expect(before).toBeInstanceOf(DOMException);
      expect((before as DOMException).name).toBe('AbortError');

      const controller = new AbortController();
      const response = await r.fetch(...chat('long', controller.signal));
      const reader = response.body!.getReader();
      await reader.read();
      const countAtAbort = r.received();
      controller.abort();
      const error = await reader.read().then(
        () => reader.read(),
        (e) => e,
      );
      expect(error).toBeInstanceOf(DOMException);
      await expectNoMorePieces(r, countAtAbort);
    }));

  it('a body the page cancels stops the worker reading', () =>
    withRelay(async (r) => {
      const response = await r.fetch(...chat('long'));
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
      const countAtCancel = r.received();
      await expectNoMorePieces(r, countAtCancel);
    }));

  it('does not follow a redirect when told not to: the 3xx comes back as the answer', () =>
    withRelay(async (r) => {
      const response = await r.fetch(...chat('fault:302'));
      // Node's fetch gives a manual redirect's real status; a browser gives an opaque redirect (status 0),
      // which the page side sets over the Response it builds.
      expect([0, 302]).toContain(response.status);
      expect(response.ok).toBe(false);
    }));

  it('sends no-cors requests (the reachability probe) with the page fetch: their answer cannot cross', () =>
    withRelay(async (r) => {
      await r.fetch(`${provider.baseURL}/models`, { mode: 'no-cors' }).catch(() => undefined);
      expect(r.direct).toEqual([`${provider.baseURL}/models`]);
    }));
});
