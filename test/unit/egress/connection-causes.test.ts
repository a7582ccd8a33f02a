import 'fake-indexeddb/auto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { type ConnectionResult, testConnection } from '../../../src/egress/connection-test.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import type { ChatTransport } from '../../../src/providers/transport.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// The causes a user must tell apart, each with its own message. Node's fetch knows no CORS, so "running
// without CORS" is the failure a browser gives (a TypeError, seen by the transport as `connection`) in
// front of a server that is up; test/browser/connection-causes.spec.ts has the real one in Chromium.

const KEY = 'sk-causes-0123456789abcdef';
let provider: TestProvider;
let mistralLike: Server;
let mistralURL: string;

beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY, cors: 'open' });
  // Lists its model, then refuses the request a step sends (as Mistral does `stream_options`).
  mistralLike = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const models = req.url?.endsWith('/models');
      // A model id starting "unknown-" gets what OpenRouter answers an unknown model: 400, not 404.
      const unknown = !models && Buffer.concat(chunks).toString().includes('"unknown-');
      const [status, body] = models
        ? [200, { object: 'list', data: [{ id: 'm' }] }]
        : unknown
          ? [400, { error: { message: 'unknown-x is not a valid model ID', code: 400 } }]
          : [422, { object: 'error', message: 'Extra inputs are not permitted', type: 'invalid_request' }];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => mistralLike.listen(0, '127.0.0.1', resolve));
  mistralURL = `http://127.0.0.1:${(mistralLike.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await provider.close();
  await new Promise<void>((resolve) => mistralLike.close(() => resolve()));
});

async function egressWith(key: string | undefined) {
  const ledger = await openLedger(`ledger-causes-${Math.random()}`);
  return createEgress({ vault: { keyFor: async () => key, keysNotBoundTo: async () => [] }, ledger });
}

/** What a browser's transport throws when the answer is hidden by CORS, or nothing answers. */
const blocked: ChatTransport = {
  // biome-ignore lint/correctness/useYield: it fails before any event, as a blocked fetch does
  async *stream() {
    throw new ProviderError('connection', 'Could not reach the provider: Failed to fetch');
  },
};

const message = (r: ConnectionResult) => (r.ok ? '' : r.message);

describe('connection test causes', () => {
  it('gives five different, specific messages for the five usual causes', async () => {
    const keyed = await egressWith(KEY);
    const wrongKey = await egressWith('sk-wrong-0000000000000000');
    const notRunning = await testConnection(keyed, {
      providerId: 'llamacpp',
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'echo',
    });
    const noCors = await testConnection(
      keyed,
      { providerId: 'llamacpp', baseURL: provider.baseURL, model: 'echo' },
      { transportFor: () => blocked },
    );
    const badKey = await testConnection(wrongKey, {
      providerId: 'llamacpp',
      baseURL: provider.baseURL,
      model: 'echo',
    });
    const badModel = await testConnection(keyed, {
      providerId: 'llamacpp',
      baseURL: provider.baseURL,
      model: 'no-such-model',
    });
    const badPath = await testConnection(keyed, {
      providerId: 'llamacpp',
      baseURL: `${provider.url}/v2`,
      model: 'echo',
    });
    expect(notRunning).toMatchObject({ ok: false, problem: 'unreachable' });
    expect(message(notRunning)).toContain('Nothing is listening at 127.0.0.1:1 (connection refused)');
    expect(noCors).toMatchObject({ ok: false, problem: 'local-cors' });
    expect(message(noCors)).toContain('is running, but it does not allow requests from this page (CORS)');
    expect(badKey).toMatchObject({ ok: false, problem: 'bad-key', status: 401 });
    expect(message(badKey)).toContain('rejected the key (401)');
    expect(badModel).toMatchObject({ ok: false, problem: 'unknown-model', status: 404 });
    expect(message(badModel)).toContain('does not know the model "no-such-model" (404). It lists: ');
    expect(badPath).toMatchObject({ ok: false, problem: 'wrong-path', status: 404 });
    expect(message(badPath)).toContain(`Nothing at ${provider.url}/v2/chat/completions (404)`);
    const all = [notRunning, noCors, badKey, badModel, badPath].map(message);
    expect(new Set(all).size).toBe(5);
    expect(JSON.stringify(all)).not.toContain('sk-wrong');
  });

  it('says it cannot tell a dead port from a server without CORS where a probe proves nothing', async () => {
    const result = await testConnection(
      await egressWith(undefined),
      { providerId: 'ollama', baseURL: 'http://127.0.0.1:1/v1', model: 'llama3.2' },
      { probeConclusive: false },
    );
    expect(result).toMatchObject({ ok: false, problem: 'unreachable-or-cors' });
    expect(result.ok === false && result.hint).toContain('OLLAMA_ORIGINS=');
  });

  it('gives the preset’s own hint, and Chrome’s local-network prompt for a public https page', async () => {
    const egress = await egressWith(undefined);
    const target = { providerId: 'lmstudio', baseURL: provider.baseURL, model: 'echo' };
    const fromPublic = await testConnection(
      egress,
      { ...target, pageOrigin: 'https://baton.example' },
      { transportFor: () => blocked },
    );
    expect(fromPublic.ok === false && fromPublic.hint).toContain('lms server start --cors');
    expect(fromPublic.ok === false && fromPublic.hint).toContain('Chrome 142');
    const fromLocal = await testConnection(
      egress,
      { ...target, pageOrigin: 'http://localhost:4173' },
      { transportFor: () => blocked },
    );
    expect(fromLocal.ok === false && fromLocal.hint).not.toContain('Chrome 142');
  });

  it('fails a server that lists the model but refuses what a step sends (422), where /models alone was green', async () => {
    const result = await testConnection(await egressWith(undefined), {
      providerId: 'custom',
      baseURL: mistralURL,
      model: 'm',
    });
    expect(result).toMatchObject({ ok: false, problem: 'bad-request', status: 422 });
    expect(message(result)).toContain('rejected the request a step would send (422)');
  });

  it('names an unknown model that a provider answers with 400 (OpenRouter, Mistral), not "rejected the request"', async () => {
    const result = await testConnection(await egressWith(undefined), {
      providerId: 'custom',
      baseURL: mistralURL,
      model: 'unknown-x',
    });
    expect(result).toMatchObject({ ok: false, problem: 'unknown-model', status: 400 });
    expect(message(result)).toContain('does not know the model "unknown-x" (400). It lists: m.');
  });

  it('tells Anthropic’s 401 for a browser request that did not opt in from a rejected key, with its hint', async () => {
    const anthropic = await startProvider({ cors: 'anthropic' });
    try {
      const egress = await egressWith('sk-ant-causes-0000000000000000');
      const plain: ChatTransport = {
        // What a client without the opt-in header gets: the provider's 401, from a page (Origin set).
        async *stream(_worker, request) {
          const response = await fetch(`${anthropic.baseURL}/chat/completions`, {
            method: 'POST',
            headers: { origin: 'https://baton.example', 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'echo', messages: request.messages }),
          });
          const body = (await response.json()) as { error: { message: string } };
          throw new ProviderError('auth', `Provider error (401): ${body.error.message}`, 401);
          // biome-ignore lint/correctness/noUnreachable: a generator must yield its type once
          yield { type: 'delta' as const, text: '' };
        },
      };
      const result = await testConnection(
        egress,
        { providerId: 'anthropic', baseURL: 'https://api.anthropic.com/v1', model: 'claude-haiku-4-5' },
        { transportFor: () => plain },
      );
      expect(result).toMatchObject({ ok: false, problem: 'cors', status: 401 });
      expect(message(result)).toContain('refused the request because it came from a web page (401)');
      expect(result.ok === false && result.hint).toContain('anthropic-dangerous-direct-browser-access: true');
      expect(result.ok === false && result.hint).toContain('organisation');
    } finally {
      await anthropic.close();
    }
  });

  it("names a dead port in a step's error and its ledger row as it does in the test, not 'fetch failed'", async () => {
    const ledger = await openLedger(`ledger-step-causes-${Math.random()}`);
    const egress = createEgress({
      vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
      ledger,
    });
    const worker = workerSpec({
      id: 'w1',
      label: 'Local',
      providerId: 'llamacpp',
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'echo',
      maxConcurrency: 1,
    });
    const handle = startRun({
      question: 'Q?',
      pool: [worker],
      transport: chatTransports(egress),
      retry: { maxAttempts: 1 },
      plan: { steps: [{ worker: 'w1', task: 'Answer.', sees: [] }] },
    });
    const result = await handle.result;
    const tested = await testConnection(egress, {
      providerId: 'llamacpp',
      baseURL: worker.baseURL,
      model: 'echo',
    });
    const said = 'Nothing is listening at 127.0.0.1:1 (connection refused)';
    expect(message(tested)).toContain(said);
    expect(result.steps[0]?.error).toContain(said);
    const chat = (await ledger.list()).filter((e) => e.purpose === 'chat');
    expect(chat).toHaveLength(1);
    expect(chat[0]?.error).toContain(said);
    expect(chat[0]?.error).not.toMatch(/fetch failed/i);
  });
});
