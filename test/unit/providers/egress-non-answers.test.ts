/**
 * Non-answers through the real egress path (worker's egress transport → HTTP → test provider): the
 * redirect is named (today egress's `redirect: 'error'` made it a bare "fetch failed"), never followed
 * with the key, and the ledger says what came back; a non-streamed completion is accepted and its usage
 * recorded.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import type { ChatEvent, ChatTransport } from '../../../src/providers/transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

const KEY = 'sk-egress-redirect-1234567890';
let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY });
});
afterAll(() => provider.close());

function worker(model: string): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Echo',
    providerId: 'vllm',
    baseURL: provider.baseURL,
    model,
  });
}

async function setup(name: string) {
  const ledger = await openLedger(name);
  const egress = createEgress({ vault: { keyFor: async () => KEY, keysNotBoundTo: async () => [] }, ledger });
  const transportOf = chatTransports(egress);
  // As the executor does: the worker's own transport, then its stream.
  const transport: ChatTransport = { stream: (w, r) => transportOf(w).stream(w, r) };
  return { ledger, transport };
}

async function collect(stream: AsyncIterable<ChatEvent>) {
  const events: ChatEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

const request = (runId: string) => ({
  messages: [{ role: 'user' as const, content: 'alpha beta' }],
  signal: new AbortController().signal,
  runId,
  stepIndex: 0,
});

describe('non-answers through egress', () => {
  it.each(['302', '307'])(
    'a %s is named with where it points, not followed, and in the ledger',
    async (kind) => {
      const { ledger, transport } = await setup(`ledger-redirect-${kind}`);
      provider.clearRequests();
      const error = await collect(transport.stream(worker(`fault:${kind}`), request('run-r'))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).kind).toBe('unexpected-response');
      expect((error as ProviderError).message).toContain(
        `redirect (${kind}) to ${provider.url}/moved/v1/chat/completions`,
      );
      expect((error as ProviderError).message).not.toMatch(/fetch failed|Failed to fetch/);
      expect(provider.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
      const [entry] = await ledger.list({ runId: 'run-r' });
      expect(entry).toMatchObject({ status: Number(kind), state: 'error', sent: true });
      expect(entry?.error).toContain('redirect');
    },
  );

  it('a whole JSON completion to a stream request is accepted, with its tokens in the ledger', async () => {
    const { ledger, transport } = await setup('ledger-ignore-stream');
    const events = await collect(transport.stream(worker('fault:ignore-stream'), request('run-j')));
    expect(events).toEqual([
      { type: 'delta', text: 'alpha beta' },
      { type: 'usage', promptTokens: 2, completionTokens: 2 },
      { type: 'finish', reason: 'stop', cut: false },
    ]);
    const [entry] = await ledger.list({ runId: 'run-j' });
    expect(entry).toMatchObject({ status: 200, state: 'done', promptTokens: 2, completionTokens: 2 });
  });
});
