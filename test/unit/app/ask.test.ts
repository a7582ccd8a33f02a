import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerSpec } from '../../../src/pool/types.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, testAppState, testWorker } from './test-app-state.ts';

const KEY = 'sk-ask-test-AAAAAAAAAAAAAAAA';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY });
});
afterAll(async () => {
  await provider.close();
});

const worker = (id: string, label: string, modelId: string): WorkerSpec =>
  testWorker(provider.baseURL, id, label, modelId);

describe('ask() in an app state built from real services', () => {
  it('plans with the conductor, runs the steps against the provider over HTTP, and stores the answer', async () => {
    const { runStore, ledger, vault, egress } = await keyedServices('ask', provider, KEY);
    const plan =
      '{"thought":"shout, then repeat","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';
    const app = testAppState({ runStore, ledger, egress, vault, conductor: scriptedConductor(plan) });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    const pool = [worker('w1', 'Shouter', 'upper'), worker('w2', 'Parrot', 'echo')];

    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    await app.runs.whenIdle();

    const view = app.runs.currentRun.value!;
    expect(view.error).toBeUndefined();
    expect(view.phase).toBe('done');
    expect(view.planText).toBe(plan);
    expect(view.plannedSteps.map((s) => s.worker)).toEqual(['w1', 'w2']);
    expect(view.workerLabels).toEqual({ w1: 'Shouter', w2: 'Parrot' });
    // Both steps went out over HTTP, each with the key egress took from the vault.
    const chats = provider.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.map((r) => (r.body as { model: string }).model)).toEqual(['upper', 'echo']);
    expect(chats.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const stored = await runStore.getRun(view.id);
    expect(stored?.run.status).toBe('done');
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'done']);
    expect(stored?.run.answer).toBe(stored?.steps[1]?.text);
    expect(stored?.run.answer).toBeTruthy();
    expect(view.answer).toBe(stored?.run.answer);
    // The ledger saw each request, tied to the run and its step.
    const entries = await ledger.list({ runId: view.id });
    expect(entries.map((e) => e.stepIndex).sort()).toEqual([0, 1]);
  });
});
