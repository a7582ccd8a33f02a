import 'fake-indexeddb/auto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listModels } from '../../../src/egress/discovery.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Each dialect's `/models` shape (src/providers/dialects.ts), against servers that answer in it: the test
// provider's Anthropic mode (https://docs.anthropic.com/en/api/models-list), and Gemini's OpenAI-compatible
// list, whose ids carry a `models/` prefix (https://ai.google.dev/gemini-api/docs/openai#list-models).

const KEY = 'sk-ant-discovery-0123456789';
const MANY = Array.from({ length: 1005 }, (_, i) => ({
  id: `claude-test-${String(i).padStart(4, '0')}`,
  behaviour: { kind: 'echo' as const },
}));
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY, models: MANY });
});
afterAll(() => provider.close());

/** Egress with the catalog's presets, `editable` ones let off their pinned origin (the servers are local). */
async function egressFor(editable: string, key?: string) {
  const ledger = await openLedger(`ledger-shapes-${Math.random()}`);
  const egress = createEgress({
    vault: { keyFor: async () => key, keysNotBoundTo: async () => [] },
    ledger,
    presetFor: (id) => (id === editable ? { ...presetById(id)!, baseURLEditable: true } : presetById(id)),
  });
  return { egress, ledger };
}

describe("model lists in each dialect's shape", () => {
  it("Anthropic: follows has_more/last_id across pages, with Anthropic's headers and the key", async () => {
    provider.clearRequests();
    const { egress, ledger } = await egressFor('anthropic', KEY);
    const models = await listModels(egress, { providerId: 'anthropic', baseURL: provider.baseURL });
    expect(models).toHaveLength(MANY.length + 6); // the five built-in models and one fixed: example
    expect(models).toContain('claude-test-1004');
    expect(models).toContain('echo');
    const gets = provider.requests.filter((r) => r.method === 'GET');
    // The provider lists its five built-in models first: the first page ends at MANY[994].
    expect(gets.map((r) => r.path)).toEqual([
      '/v1/models?limit=1000',
      `/v1/models?limit=1000&after_id=${encodeURIComponent(MANY[994]!.id)}`,
    ]);
    expect(gets[0]!.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
    expect((await ledger.list()).map((e) => e.purpose)).toEqual(['models', 'models']);
  });

  it('Anthropic: a rejected key is an auth error with Anthropic’s message', async () => {
    const { egress } = await egressFor('anthropic', 'sk-ant-wrong-key-000000');
    await expect(
      listModels(egress, { providerId: 'anthropic', baseURL: provider.baseURL }),
    ).rejects.toMatchObject({
      kind: 'auth',
      message: 'The key was rejected (401): invalid x-api-key',
    });
  });

  describe('Gemini', () => {
    let close: () => Promise<void>;
    let baseURL: string;
    beforeAll(async () => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [
              { id: 'models/gemini-2.5-flash', object: 'model', owned_by: 'google' },
              { id: 'models/gemini-2.5-pro', object: 'model', owned_by: 'google' },
            ],
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1beta/openai`;
      close = () => new Promise((resolve) => server.close(() => resolve()));
    });
    afterAll(() => close());

    it('strips the models/ prefix, which chat requests do not want', async () => {
      const { egress } = await egressFor('gemini', 'AIza-test-key');
      expect(await listModels(egress, { providerId: 'gemini', baseURL })).toEqual([
        'gemini-2.5-flash',
        'gemini-2.5-pro',
      ]);
    });
  });
});
