import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTools } from '../../../src/app/tools.ts';
import { createVaultUnlock } from '../../../src/app/vault-unlock.ts';
import { MCP_PROVIDER_ID, mcpProviderId } from '../../../src/providers/mcp-preset.ts';
import { openToolStore } from '../../../src/tools/store.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import { toolEgress } from '../tools/tool-fixture.ts';
import { until } from './signal-until.ts';

const TOKEN = 'mcp-app-token-0123456789';
const PASS = 'correct horse battery staple';
let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer({ token: TOKEN });
});
afterAll(() => mcp.close());

async function tools(name: string) {
  const { egress, vault } = await toolEgress();
  const store = await openToolStore(name);
  return {
    state: createTools({
      toolStore: async () => store,
      egress: async () => egress,
      vault: async () => vault,
    }),
    vault,
  };
}

describe('Settings → Tools', () => {
  it('adds a server with its token, lists its tools, and offers only the read-only ones at first', async () => {
    const { state, vault } = await tools('tools-app-1');
    expect(await state.addServer({ id: 'tracker', url: mcp.url, token: TOKEN })).toBe(true);
    expect(state.error.value).toBeUndefined();
    const [server] = state.servers.value;
    expect(server?.tools.map((t) => t.name)).toEqual(['search_issues', 'delete_issue']);
    expect(server?.offered).toEqual(['search_issues']);
    expect(await state.run.offered()).toEqual([
      {
        name: 'tracker.search_issues',
        description: expect.stringContaining('Search the tracker'),
        readOnly: true,
      },
    ]);
    expect((await vault.listKeys()).map((k) => [k.providerId, k.origin])).toEqual([
      [mcpProviderId(mcp.url), new URL(mcp.url).origin],
    ]);

    await state.setOffered('tracker', 'delete_issue', true);
    expect((await state.run.offered()).map((t) => [t.name, t.readOnly])).toEqual([
      ['tracker.search_issues', true],
      ['tracker.delete_issue', false],
    ]);
    // Removing the server removes its token too.
    await state.removeServer('tracker');
    expect(state.servers.value).toEqual([]);
    expect(await vault.listKeys()).toEqual([]);
  });

  it('binds a token to its server’s URL: a second server on the same origin is not sent it', async () => {
    const A_TOKEN = 'mcp-a-token-0123456789';
    const shared = await startMcpServer({ tokens: { '/a/mcp': A_TOKEN } });
    try {
      const { state, vault } = await tools('tools-app-6');
      const a = new URL('/a/mcp', shared.url).href;
      const b = new URL('/b/mcp', shared.url).href;
      expect(await state.addServer({ id: 'a', url: a, token: A_TOKEN })).toBe(true);
      expect(await state.addServer({ id: 'b', url: b })).toBe(true);
      expect(state.error.value).toBeUndefined();
      const auth = (path: string) =>
        shared.requests
          .filter((r) => r.path === path && r.method === 'POST')
          .map((r) => r.headers.authorization);
      expect(auth('/a/mcp').length).toBeGreaterThan(0);
      expect(new Set(auth('/a/mcp'))).toEqual(new Set([`Bearer ${A_TOKEN}`]));
      expect(auth('/b/mcp').length).toBeGreaterThan(0);
      expect(new Set(auth('/b/mcp'))).toEqual(new Set([undefined]));
      // Removing b leaves a's token; removing a removes it.
      await state.removeServer('b');
      expect(await vault.listKeys()).toHaveLength(1);
      await state.removeServer('a');
      expect(await vault.listKeys()).toEqual([]);
    } finally {
      await shared.close();
    }
  });

  it('binds a token an earlier version saved for the whole origin to its server once the servers are read', async () => {
    const { state, vault } = await tools('tools-app-7');
    expect(await state.addServer({ id: 'tracker', url: mcp.url, token: TOKEN })).toBe(true);
    // As the version before URL-bound tokens saved it:
    for (const key of await vault.listKeys()) await vault.deleteKey(key.id);
    await vault.saveKey({ providerId: MCP_PROVIDER_ID, origin: mcp.url, key: TOKEN });
    await state.load();
    expect((await vault.listKeys()).map((k) => [k.providerId, k.origin])).toEqual([
      [mcpProviderId(mcp.url), new URL(mcp.url).origin],
    ]);
    expect(await state.refresh('tracker')).toBe(true);
  });

  it('asks for the passphrase before a token is saved on a locked vault: declined, it names the lock and keeps nothing', async () => {
    const { egress, vault } = await toolEgress();
    const store = await openToolStore('tools-app-locked');
    const unlock = createVaultUnlock({ vault: async () => vault });
    const state = createTools(
      { toolStore: async () => store, egress: async () => egress, vault: async () => vault },
      () => false,
      unlock.ensureUnlockedFor,
    );
    await vault.setPassphrase(PASS);
    vault.lock();
    const purpose = 'to save the token of tool server "tracker"';

    const declined = state.addServer({ id: 'tracker', url: mcp.url, token: TOKEN });
    expect((await until(unlock.unlockRequest, (r) => r !== undefined))?.purpose).toBe(purpose);
    unlock.unlockRequest.value!.settle(false);
    expect(await declined).toBe(false);
    expect(state.error.value).toContain(`The vault is still locked: unlock it ${purpose}.`);
    expect(state.servers.value).toEqual([]);
    expect(await vault.listKeys()).toEqual([]);

    const unlocked = state.addServer({ id: 'tracker', url: mcp.url, token: TOKEN });
    await until(unlock.unlockRequest, (r) => r !== undefined);
    await unlock.answer(PASS);
    expect(await unlocked).toBe(true);
    expect(state.error.value).toBeUndefined();
    expect(state.servers.value.map((server) => server.id)).toEqual(['tracker']);
  });

  it('names what is wrong: a bad name, a server that refuses without its token', async () => {
    const { state } = await tools('tools-app-2');
    expect(await state.addServer({ id: 'my.tracker', url: mcp.url })).toBe(false);
    expect(state.error.value).toContain('Name the server');
    expect(await state.addServer({ id: 'tracker', url: mcp.url })).toBe(false);
    expect(state.error.value).toMatch(/^MCP server "tracker": .*401/);
    expect(state.servers.value).toEqual([]);
  });

  it('gives a step its grant only for a worker that calls tools, and only tools still offered', async () => {
    const { state } = await tools('tools-app-3');
    await state.addServer({ id: 'tracker', url: mcp.url, token: TOKEN });
    const toolsFor = await state.run.toolsFor();
    const step = {
      worker: 'w1',
      task: 't',
      sees: [] as number[],
      tools: ['tracker.search_issues', 'tracker.delete_issue'],
    };
    const w1 = workerSpec({ id: 'w1', baseURL: 'http://127.0.0.1:1/v1', model: 'm' });
    expect(toolsFor?.(step, 0, w1, 'r')?.tools.map((t) => t.name)).toEqual(['tracker__search_issues']);
    const local = workerSpec({ id: 'local', baseURL: '', model: 'conductor' });
    expect(toolsFor?.(step, 0, local, 'r')).toBeUndefined();
  });

  it('offers the code sandbox as sandbox.run_python while its run worker is offered, and grants it only then', async () => {
    const { egress, vault } = await toolEgress();
    const store = await openToolStore('tools-app-5');
    const executed: string[] = [];
    let sandboxOn = true;
    const state = createTools(
      {
        toolStore: async () => store,
        egress: async () => egress,
        vault: async () => vault,
        codeSandbox: async () => ({
          execute: async (request) => {
            executed.push(request.code);
            return { outcome: 'ok', stdout: '2\n', stderr: '', stdoutDropped: 0, stderrDropped: 0, ms: 1 };
          },
        }),
      },
      () => sandboxOn,
    );
    expect(await state.run.offered()).toEqual([
      { name: 'sandbox.run_python', description: expect.stringContaining('run step'), readOnly: true },
    ]);
    const step = { worker: 'w1', task: 't', sees: [] as number[], tools: ['sandbox.run_python'] };
    const w1 = workerSpec({ id: 'w1', baseURL: 'http://127.0.0.1:1/v1', model: 'm' });
    const granted = (await state.run.toolsFor())?.(step, 0, w1, 'r');
    expect(granted?.tools.map((t) => t.name)).toEqual(['sandbox__run_python']);
    const outcome = await granted?.call(
      { id: 'c', name: 'sandbox__run_python', arguments: '{"code":"print(1 + 1)"}' },
      new AbortController().signal,
    );
    expect(outcome?.note).toEqual({ tool: 'sandbox.run_python', outcome: 'called' });
    expect(executed).toEqual(['print(1 + 1)']);
    // Never on the code runner itself, nor the on-device model.
    const run = workerSpec({ id: 'run', baseURL: '', model: 'sandbox' });
    expect((await state.run.toolsFor())?.(step, 0, run, 'r')).toBeUndefined();

    sandboxOn = false;
    expect(await state.run.offered()).toEqual([]);
    expect(await state.run.toolsFor()).toBeUndefined();
  });

  it('asks one question at a time and answers it', async () => {
    const { state } = await tools('tools-app-4');
    const request = { runId: 'r', stepIndex: 0, server: 's', tool: 't', args: { id: 1 }, destructive: true };
    const first = state.confirm(request);
    const second = state.confirm({ ...request, stepIndex: 1 });
    expect(state.pending.value.map((p) => p.stepIndex)).toEqual([0, 1]);
    state.pending.value[0]?.answer(false);
    state.pending.value[0]?.answer(true);
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    expect(state.pending.value).toEqual([]);
  });
});
