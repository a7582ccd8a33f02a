import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import type { ChatEvent } from '../../../src/providers/transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

const KEY = 'sk-transport-test-1234567890';
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY });
});
afterAll(() => provider.close());

function worker(over: Partial<WorkerSpec> = {}): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Echo',
    strengths: 'echoes',
    providerId: 'vllm',
    baseURL: provider.baseURL,
    model: 'echo',
    ...over,
  });
}

async function collect(stream: AsyncIterable<ChatEvent>) {
  const events: ChatEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe("a worker's transport through egress (chatTransports, as runs use it)", () => {
  it('gets its key from the vault by origin, sends no SDK headers, and is recorded with its tokens', async () => {
    const ledger = await openLedger('ledger-transport-1');
    const egress = createEgress({
      vault: {
        keyFor: async (id, origin) => (id === 'vllm' && origin === provider.url ? KEY : undefined),
        keysNotBoundTo: async () => [],
      },
      ledger,
    });
    const transport = chatTransports(egress)(worker());
    const events = await collect(
      transport.stream(worker(), {
        messages: [{ role: 'user', content: 'alpha beta' }],
        signal: new AbortController().signal,
        runId: 'run-t',
        stepIndex: 4,
      }),
    );
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('alpha beta');
    const post = provider.requests.find((r) => r.method === 'POST')!;
    expect(post.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(Object.keys(post.headers).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
    const [entry] = await ledger.list({ runId: 'run-t' });
    expect(entry).toMatchObject({
      stepIndex: 4,
      providerId: 'vllm',
      state: 'done',
      status: 200,
      keyAttached: true,
      promptTokens: 2,
      completionTokens: 2,
    });
  });

  it('refuses (and records) a request for an unknown provider, and a cloud preset off its origin', async () => {
    const ledger = await openLedger('ledger-transport-2');
    const egress = createEgress({
      vault: { keyFor: async () => KEY, keysNotBoundTo: async () => [] },
      ledger,
    });
    await expect(
      egress.fetchFor({ providerId: '(none)', baseURL: provider.baseURL })(`${provider.baseURL}/models`),
    ).rejects.toMatchObject({ kind: 'refused' });
    const openai = worker({ providerId: 'openai' });
    const error = await collect(
      chatTransports(egress)(openai).stream(openai, {
        messages: [{ role: 'user', content: 'x' }],
        signal: new AbortController().signal,
        runId: 'run-r',
        stepIndex: 0,
      }),
    ).catch((e: unknown) => e);
    // The SDK wraps what fetch throws in APIConnectionError; the transport unwraps it, so a refusal is not
    // mistaken for a retryable network failure.
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'refused', retryable: false });
    expect((error as Error).message).toContain('requests go only to https://api.openai.com');
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(provider.requests.filter((r) => r.method === 'POST' && r.time > 0)).toHaveLength(1); // only the first test's
    const entries = await ledger.list();
    expect(entries.map((e) => [e.providerId, e.sent])).toEqual([
      ['(none)', false],
      ['openai', false],
    ]);
    expect(presetById('openai')!.baseURLEditable).toBe(false);
  });

  it('refuses when the vault refuses (locked, or the key is bound elsewhere), without sending', async () => {
    const ledger = await openLedger('ledger-transport-3');
    const egress = createEgress({
      vault: {
        keyFor: async () => {
          throw new Error('The vault is locked.');
        },
        keysNotBoundTo: async () => [],
      },
      ledger,
    });
    const before = provider.requests.length;
    const error = await egress
      .request({ providerId: 'vllm', baseURL: provider.baseURL, path: '/models' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'refused' });
    expect((error as Error).message).toContain('locked');
    expect(provider.requests.length).toBe(before);
  });
  it('a step to a host that wants a key, with none saved for it, fails saying so, once', async () => {
    const ledger = await openLedger('ledger-transport-4');
    const egress = createEgress({
      vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
      ledger,
    });
    const custom = worker({ providerId: 'custom' });
    const error = await collect(
      chatTransports(egress)(custom).stream(custom, {
        messages: [{ role: 'user', content: 'x' }],
        signal: new AbortController().signal,
        runId: 'run-k',
        stepIndex: 0,
      }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'auth', retryable: false });
    expect((error as Error).message).toContain(`no key is saved for ${new URL(provider.url).host}`);
    expect((await ledger.list()).map((e) => [e.status, e.keyAttached])).toEqual([[401, false]]);
  });
});
