import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const KEY = 'sk-checks-test-AAAAAAAAAAAAAAAA';

const keyed = keyedTestProvider(KEY);
const worker = keyed.worker;

/** An app state over real services; the vault holds a key for `p-test` only, so `p-none` has none. */
async function appWith(name: string, plan: string) {
  const { runStore, ledger, vault, egress } = await keyedServices(`${name}`, keyed.provider, KEY, [
    'p-test',
    'p-none',
  ]);
  const app = testAppState({ runStore, ledger, egress, vault, conductor: scriptedConductor(plan) });
  app.prefs.planPrefs.value = { maxSteps: 4, maxDepth: 0 };
  return { app, ledger, runStore };
}

const chats = () => keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions');

describe('plan checks where runs start', () => {
  it('fails a plan that gives a step to a worker with no key before anything is sent, naming the worker', async () => {
    const before = chats().length;
    const plan =
      '{"thought":"t","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';
    const { app, ledger } = await appWith('checks-nokey', plan);
    const pool = [
      worker('w1', 'Shouter', 'upper'),
      { ...worker('w2', 'Parrot', 'echo'), providerId: 'p-none' },
    ];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    await app.runs.whenIdle();
    const view = app.runs.currentRun.value!;
    expect(view.phase).toBe('failed');
    expect(view.error).toBe(
      'The run could not start: Step 1 goes to "Parrot", which has no API key saved. ' +
        'Add a key for "Parrot" in Settings, or give the step to another worker.',
    );
    // Not even step 0, whose worker has a key, went out: the plan was checked whole first.
    expect(chats().length).toBe(before);
    expect(await ledger.list({ runId: view.id })).toEqual([]);
  });

  it('tells the review which workers have no key, so it can name them before Run', async () => {
    const plan =
      '{"thought":"t","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';
    const { app } = await appWith('checks-review', plan);
    const pool = [
      worker('w1', 'Shouter', 'upper'),
      { ...worker('w2', 'Parrot', 'echo'), providerId: 'p-none' },
    ];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: true }, pool);
    const review = app.runs.pendingReview.value;
    expect(review?.keyless).toEqual(new Set(['w2']));
    app.runs.discardReview();
  });

  it('drops a step nobody reads from a plan checked whole, and says so under the plan', async () => {
    const before = chats().length;
    const plan =
      '{"thought":"t","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Say bye","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';
    const { app, runStore } = await appWith('checks-drop', plan);
    // A keyless worker in the pool (unused by the plan) makes the page wait for the whole plan.
    const pool = [
      worker('w1', 'Shouter', 'upper'),
      worker('w2', 'Parrot', 'echo'),
      { ...worker('w3', 'Silent', 'echo'), providerId: 'p-none' },
    ];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    await app.runs.whenIdle();
    const view = app.runs.currentRun.value!;
    expect(view.error).toBeUndefined();
    expect(view.phase).toBe('done');
    expect(view.planChecks).toEqual([
      'No later step reads the answer of step 1 ("Parrot"), and it is not the last step, so its work would be wasted. Step 1 is left out.',
    ]);
    const sent = chats().slice(before);
    expect(sent.map((r) => (r.body as { model: string }).model)).toEqual(['upper', 'echo']);
    const stored = await runStore.getRun(view.id);
    expect(stored?.run.plan.steps.map((s) => s.task)).toEqual(['Say hello', 'Repeat it']);
    expect(stored?.run.plan.steps[1]?.sees).toEqual([0]);
  });
});
