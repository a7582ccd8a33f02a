import 'fake-indexeddb/auto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection } from '../../../src/egress/connection-test.ts';
import { listModels } from '../../../src/egress/discovery.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

const KEY = 'sk-conn-test-0123456789abcdef';
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY });
});
afterAll(() => provider.close());

async function egressWith(key: string | undefined) {
  const ledger = await openLedger(`ledger-conn-${Math.random()}`);
  return {
    ledger,
    egress: createEgress({ vault: { keyFor: async () => key, keysNotBoundTo: async () => [] }, ledger }),
  };
}

describe('model discovery', () => {
  it('lists the models through egress, with the key', async () => {
    const { egress, ledger } = await egressWith(KEY);
    const models = await listModels(egress, { providerId: 'vllm', baseURL: provider.baseURL });
    expect(models).toContain('echo');
    expect(models).toContain('table');
    expect([...models].sort((a, b) => a.localeCompare(b))).toEqual(models);
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({ purpose: 'models', status: 200, keyAttached: true });
  });
});

describe('test connection', () => {
  it('sends what a step sends, a streamed chat request, even for a listed model (a list proves little)', async () => {
    const { egress, ledger } = await egressWith(KEY);
    provider.clearRequests();
    const result = await testConnection(egress, {
      providerId: 'vllm',
      baseURL: provider.baseURL,
      model: 'echo',
    });
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.models).toContain('echo');
    // The chat request first (through the step's own transport, streamed), then the list for the picker.
    expect((await ledger.list()).map((e) => e.purpose)).toEqual(['connection-test', 'models']);
    const chat = provider.requests.find((r) => r.path === '/v1/chat/completions');
    expect(chat?.body).toMatchObject({ model: 'echo', stream: true });
  });

  it('is ok for a model the list does not show, when it answers', async () => {
    const { egress, ledger } = await egressWith(KEY);
    const result = await testConnection(egress, {
      providerId: 'vllm',
      baseURL: provider.baseURL,
      model: 'fixed:hi',
    });
    expect(result).toMatchObject({ ok: true });
    expect((await ledger.list()).map((e) => e.purpose)).toEqual(['connection-test', 'models']);
  });

  it('names a base URL that redirects, instead of "rejected the test request (301)"', async () => {
    const moved = createServer((req, res) => {
      req.resume();
      res.writeHead(301, { location: 'https://api.example.com/v1/models' }).end();
    });
    await new Promise<void>((resolve) => moved.listen(0, '127.0.0.1', resolve));
    try {
      const { egress } = await egressWith(undefined);
      const result = await testConnection(egress, {
        providerId: 'custom',
        baseURL: `http://127.0.0.1:${(moved.address() as AddressInfo).port}/v1`,
      });
      expect(result).toMatchObject({ ok: false, problem: 'bad-request' });
      expect(result.ok === false && result.message).toContain(
        'a redirect (301) to https://api.example.com/v1/models instead of an answer',
      );
      expect(result.ok === false && result.message).not.toContain('rejected the test request');
    } finally {
      moved.closeAllConnections();
      await new Promise<void>((resolve) => moved.close(() => resolve()));
    }
  });

  it('says the key was rejected (401), without echoing it', async () => {
    const { egress } = await egressWith('sk-wrong-key-0000000000000000');
    const result = await testConnection(egress, {
      providerId: 'vllm',
      baseURL: provider.baseURL,
      model: 'echo',
    });
    expect(result).toMatchObject({ ok: false, problem: 'bad-key', status: 401 });
    expect(JSON.stringify(result)).not.toContain('sk-wrong-key');
  });

  it('says no key is saved for the host (not that it was rejected) when a 401 follows a request without one', async () => {
    const { egress, ledger } = await egressWith(undefined);
    const host = new URL(provider.baseURL).host;
    for (const model of [undefined, 'fixed:hi']) {
      const result = await testConnection(egress, {
        providerId: 'custom',
        baseURL: provider.baseURL,
        ...(model ? { model } : {}),
      });
      expect(result).toMatchObject({ ok: false, problem: 'no-key', status: 401 });
      expect(result.ok === false && result.message).toContain(`no key is saved for ${host}`);
      expect(result.ok === false && result.message).not.toContain('rejected the key');
    }
    expect((await ledger.list()).map((e) => [e.sent, e.keyAttached, e.status])).toEqual([
      [true, false, 401],
      [true, false, 401],
    ]);
  });

  it('says the model is unknown (404)', async () => {
    const { egress } = await egressWith(KEY);
    const result = await testConnection(egress, {
      providerId: 'vllm',
      baseURL: provider.baseURL,
      model: 'gpt-nope',
    });
    expect(result).toMatchObject({ ok: false, problem: 'unknown-model', status: 404 });
    expect(result.ok === false && result.message).toContain('gpt-nope');
  });

  it('says a key is missing before sending anything', async () => {
    const { egress, ledger } = await egressWith(undefined);
    const result = await testConnection(egress, {
      providerId: 'openai',
      baseURL: 'https://api.openai.com/v1',
    });
    expect(result).toMatchObject({ ok: false, problem: 'no-key' });
    expect((await ledger.list()).every((e) => !e.sent)).toBe(true);
  });

  it('says a local server is not running, without the CORS hint that cannot help a dead port', async () => {
    const { egress } = await egressWith(undefined);
    const result = await testConnection(egress, {
      providerId: 'ollama',
      baseURL: 'http://127.0.0.1:1/v1',
      pageOrigin: 'https://baton.example',
    });
    expect(result).toMatchObject({ ok: false, problem: 'unreachable' });
    expect(result.ok === false && result.message).toContain('Nothing is listening at 127.0.0.1:1');
    // Nothing answered, so CORS is not the problem; Chrome's local-network prompt may be (a refused one
    // looks like a dead port).
    expect(result.ok === false && result.hint).not.toContain('OLLAMA_ORIGINS');
    expect(result.ok === false && result.hint).toContain('local network access');
  });
});
