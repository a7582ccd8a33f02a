import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { openToolStore } from '../../../src/tools/store.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { testAppState } from './test-app-state.ts';

// A tool server's token is a saved key like a provider's: on a locked vault, the passphrase is asked for
// when a step is about to call that server, and the call goes on once it is given. Declined, nothing
// reaches the server, the model is told, and the step's record of the call names the lock.

const TOKEN = 'mcp-unlock-token-0123456789';
const PASS = 'correct horse battery staple';
let provider: TestProvider;
let mcp: TestMcpServer;

beforeAll(async () => {
  provider = await startProvider({
    models: [
      {
        id: 'searcher',
        behaviour: { kind: 'echo' },
        toolCalls: { rounds: [[{ name: 'tracker__search_issues', arguments: { query: 'login' } }]] },
      },
    ],
  });
  mcp = await startMcpServer({ token: TOKEN });
});
afterAll(async () => {
  await provider.close();
  await mcp.close();
});

describe('a tool call on a locked vault', () => {
  it('asks for the passphrase before the server’s token is sent: declined, the step names the lock; unlocked, the call is made', async () => {
    const [runStore, ledger, vault, toolStore] = await Promise.all([
      openRunStore('tool-unlock-runs'),
      openLedger('tool-unlock-ledger'),
      openVault('tool-unlock-vault'),
      openToolStore('tool-unlock-tools'),
    ]);
    const egress = createEgress({ vault, ledger });
    const plan =
      '{"thought":"one","steps":[{"worker":"w1","task":"Find the login issues.","sees":[],"tools":["tracker.search_issues"]}]}';
    const app = testAppState({
      runStore,
      ledger,
      egress,
      vault,
      conductor: scriptedConductor(plan),
      toolStore,
    });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    expect(await app.tools.addServer({ id: 'tracker', url: mcp.url, token: TOKEN })).toBe(true);
    await vault.setPassphrase(PASS);
    vault.lock();
    const listed = mcp.requests.length;
    const pool = [workerSpec({ id: 'w1', label: 'Searcher', baseURL: provider.baseURL, model: 'searcher' })];
    const question = { question: 'Which issues mention login?', mode: 'conductor' as const, review: false };
    const purpose = 'to send your token to the tool server "tracker"';

    const declined = app.runs.ask(question, pool);
    await expect.poll(() => app.unlock.unlockRequest.value?.purpose, { timeout: 10_000 }).toBe(purpose);
    app.unlock.unlockRequest.value!.settle(false);
    await declined;
    await app.runs.whenIdle();
    const answered = app.runs.currentRun.value!;
    expect(answered.error).toBeUndefined();
    expect(answered.steps[0]?.toolCalls).toEqual([{ tool: 'tracker.search_issues', outcome: 'locked' }]);
    expect(mcp.requests.slice(listed)).toEqual([]);
    expect(mcp.calls).toEqual([]);
    expect(vault.state()).toBe('locked');

    const unlocked = app.runs.ask(question, pool);
    await expect.poll(() => app.unlock.unlockRequest.value?.purpose, { timeout: 10_000 }).toBe(purpose);
    await vault.unlock(PASS);
    await unlocked;
    await app.runs.whenIdle();
    const called = app.runs.currentRun.value!;
    expect(called.error).toBeUndefined();
    expect(called.steps[0]?.toolCalls).toEqual([{ tool: 'tracker.search_issues', outcome: 'called' }]);
    expect(mcp.calls.map((c) => c.tool)).toEqual(['search_issues']);
    expect(
      mcp.requests
        .slice(listed)
        .filter((r) => r.method === 'POST')
        .map((r) => r.headers.authorization),
    ).toContain(`Bearer ${TOKEN}`);
    expect(app.unlock.unlockRequest.value).toBeUndefined();
  });
});
