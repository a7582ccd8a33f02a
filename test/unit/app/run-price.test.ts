import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateText } from '../../../src/app/price-text.ts';
import { declinedText, raisedLimit, runSpendLimit } from '../../../src/app/runs/spend-confirm.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, testAppState } from './test-app-state.ts';

// The price before the spend, in an app state built from real services (fake-indexeddb, egress, the real
// in-thread planner over a scripted engine, the test provider over HTTP): Plan only sends nothing, a plan
// over the spend limit waits for the user's OK, and declining loses nothing.

const KEY = 'sk-price-test-AAAAAAAAAAAAAAAA';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ apiKey: KEY });
  provider.setModel({
    id: 'slow-echo',
    behaviour: { kind: 'echo' },
    latency: { firstTokenMs: 50, perTokenMs: 20 },
  });
});
afterAll(() => provider.close());

/** $1 a million tokens in and out: 400 answer tokens cost $0.0004. */
function worker(id: string, label: string, modelId: string, perM = 1): WorkerSpec {
  return workerSpec({
    id,
    label,
    strengths: 'test',
    providerId: 'p-test',
    baseURL: provider.baseURL,
    model: modelId,
    maxConcurrency: 1,
    price: { inputPerM: perM, outputPerM: perM },
  });
}

const PLAN =
  '{"thought":"shout, then repeat","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';

let nextDb = 0;
async function appWith(options: { passphrase?: string } = {}) {
  const n = nextDb++;
  const { runStore, ledger, vault, egress } = await keyedServices(`price-${n}`, provider, KEY);
  if (options.passphrase) {
    await vault.setPassphrase(options.passphrase);
    vault.lock();
  }
  const app = testAppState({ runStore, ledger, egress, vault, conductor: scriptedConductor(PLAN) });
  app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
  return { app, ledger, runStore, vault };
}

function chatsFor(...models: string[]) {
  return provider.requests.filter(
    (r) => r.path === '/v1/chat/completions' && models.includes((r.body as { model: string }).model),
  );
}

/** Resolves once `check` holds, looked at after each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('the price before the spend', () => {
  it('Plan only plans and stops: the plan and its price, no unlock prompt, no request, no ledger entry', async () => {
    const { app, ledger } = await appWith({ passphrase: 'correct horse battery staple' });
    const pool = [worker('w1', 'Shouter', 'plan-only-a'), worker('w2', 'Parrot', 'plan-only-b')];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false, planOnly: true }, pool);
    await app.runs.whenIdle();

    const view = app.runs.currentRun.value!;
    expect(view.phase).toBe('review');
    expect(view.plannedSteps.map((s) => s.worker)).toEqual(['w1', 'w2']);
    expect(app.runs.pendingReview.value?.planOnly).toBe(true);
    // No history yet: 400 tokens an answer, said so.
    expect(view.estimate?.steps.map((s) => s.outputTokens)).toEqual([400, 400]);
    expect(view.estimate?.cost).toBeGreaterThan(0);
    expect(estimateText(view.estimate!, view.workerLabels)).toContain(
      '≈ 400 tokens per answer where a worker has no history yet',
    );
    expect(app.unlock.unlockRequest.value).toBeUndefined();
    expect(chatsFor('plan-only-a', 'plan-only-b')).toHaveLength(0);
    expect(await ledger.list({})).toEqual([]);
  });

  it('a reviewed plan over the limit waits for the OK; declined, it stays in review; agreed, it runs', async () => {
    const { app } = await appWith();
    app.prefs.spendPrefs.value = { runLimitUsd: 0.0001 };
    const pool = [worker('w1', 'Shouter', 'upper'), worker('w2', 'Parrot', 'echo')];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: true }, pool);
    const review = app.runs.pendingReview.value!;
    const before = chatsFor('upper', 'echo').length;

    const declined = app.runs.runReviewed(review.plan);
    const confirm = app.runs.spendConfirm.value!;
    expect(confirm.limitUsd).toBe(0.0001);
    expect(confirm.estimate.cost).toBeGreaterThan(0.0001);
    expect(confirm.streaming).toBe(false);
    app.runs.confirmSpend(false);
    await declined;
    expect(app.runs.currentRun.value?.phase).toBe('review');
    expect(app.runs.pendingReview.value).toBe(review);
    expect(chatsFor('upper', 'echo')).toHaveLength(before);

    const agreed = app.runs.runReviewed(review.plan);
    expect(app.runs.spendConfirm.value).toBeDefined();
    app.runs.confirmSpend(true);
    await agreed;
    await app.runs.whenIdle();
    const view = app.runs.currentRun.value!;
    expect(view.phase).toBe('done');
    expect(chatsFor('upper', 'echo').length).toBe(before + 2);
    // The estimate stays beside the actual cost.
    expect(view.estimate?.cost).toBe(confirm.estimate.cost);
    expect(view.totals?.cost).toBeGreaterThan(0);

    // The next plan's answers are estimated from these workers' answers, no longer from the default.
    await app.runs.ask({ question: 'Greet me again.', mode: 'conductor', review: true }, pool);
    const next = app.runs.currentRun.value!.estimate!;
    expect(next.steps.map((s) => s.basis)).toEqual(['history', 'history']);
    expect(next.steps.map((s) => s.outputTokens)).toEqual(view.steps.map((s) => s.usage?.completionTokens));
    expect(next.defaultAnswerTokens).toBeUndefined();
  });

  it('a streamed plan over the limit holds its dearer steps; declined, the run stops and says why', async () => {
    const { app, runStore } = await appWith();
    // Step 0 alone is within the limit; with step 1 the plan is over it.
    const pool = [worker('w1', 'Shouter', 'upper'), worker('w2', 'Parrot', 'slow-echo')];
    const probe = await appWith();
    await probe.app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: true }, pool);
    const full = probe.app.runs.currentRun.value!.estimate!;
    const first = full.steps[0]!.cost!;
    app.prefs.spendPrefs.value = { runLimitUsd: (first + full.cost) / 2 };

    const before = chatsFor('slow-echo').length;
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    await until(() => app.runs.spendConfirm.value !== undefined);
    const confirm = app.runs.spendConfirm.value!;
    expect(confirm.streaming).toBe(true);
    expect(confirm.estimate.steps).toHaveLength(2);
    const runId = app.runs.currentRun.value!.id;
    // The streaming plan's estimate is on the run view as it streams (the line under the plan).
    expect(app.runs.currentRun.value?.estimate?.steps).toHaveLength(2);
    await until(() => app.runs.currentRun.value?.steps[0]?.state === 'done');
    app.runs.confirmSpend(false);
    await app.runs.whenIdle();

    const view = app.runs.currentRun.value!;
    expect(view.phase).toBe('cancelled');
    expect(view.error).toBe(declinedText(confirm.estimate, confirm.limitUsd));
    expect(view.error).toMatch(
      /^Stopped before passing your \$0\.000\d+ spend limit per run: the plan was estimated at \$0\.0\d+\. Steps done are kept\.$/,
    );
    expect(view.steps.map((s) => s.state)).toEqual(['done']);
    // The held step never left.
    expect(chatsFor('slow-echo')).toHaveLength(before);
    const stored = await runStore.getRun(runId);
    expect(stored?.steps.map((s) => s.state)).toEqual(['done']);
    expect(stored?.steps[0]?.text).toBeTruthy();
  });

  it('a run the user agreed to may spend up to twice its estimate, in whole cents; any other keeps the limit', () => {
    expect(raisedLimit(0.62, 0.5)).toBe(1.24);
    expect(raisedLimit(0.301, 0.1)).toBe(0.61);
    expect(runSpendLimit(0.62, 0.5)).toBe(1.24);
    // Within the limit: the user's limit, not a raised one.
    expect(runSpendLimit(0.12, 0.15)).toBe(0.15);
    expect(runSpendLimit(0.12, undefined)).toBeUndefined();
  });
});
