import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const KEY = 'sk-ask-test-AAAAAAAAAAAAAAAA';

const keyed = keyedTestProvider(KEY);
const worker = keyed.worker;

describe('ask() in an app state built from real services', () => {
  it('plans with the conductor, runs the steps against the provider over HTTP, and stores the answer', async () => {
    const { runStore, ledger, vault, egress } = await keyedServices('ask', keyed.provider, KEY);
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
    const chats = keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions');
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
