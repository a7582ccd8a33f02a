import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { exportRunJson } from '../../../src/app/export.ts';
import { runElapsed } from '../../../src/app/runs/run-model.ts';
import type { RunConductor } from '../../../src/app/services.ts';
import { EngineError } from '../../../src/shared/engine-errors.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import { scriptedConductor, scriptedEngine } from './scripted-conductor.ts';

const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };

import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

// History keeps every run, including the ones that never reached the executor: a plan waiting for review
// (or made with Plan only) and a question the conductor could not plan. A new app state over the same
// stores is the page after a reload.

const KEY = 'sk-history-records-AAAAAAAAAAAA';
const keyed = keyedTestProvider(KEY);
const PLAN =
  '{"thought":"shout, then repeat","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';

/** A conductor whose engine fails as wllama's llama.cpp does on a prompt its template cannot format. */
const failing: RunConductor = {
  plan: () =>
    Promise.reject(
      Object.assign(new Error('llama.cpp failed: Failed to format input: unordered_map::at: key not found'), {
        name: 'EngineFailure',
      }),
    ),
  replan: () => Promise.reject(new Error('unused')),
  chat: () => Promise.reject(new Error('unused')),
};

async function setup(name: string, conductor: RunConductor) {
  const services = await keyedServices(name, keyed.provider, KEY);
  const pool = [keyed.worker('w1', 'Shouter', 'upper'), keyed.worker('w2', 'Parrot', 'echo')];
  const app = () => {
    const state = testAppState({ ...services, conductor });
    state.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    return state;
  };
  return { ...services, pool, app };
}

describe('History keeps the runs the executor never saw', () => {
  it('keeps a Plan-only result; after a reload it opens in review, and runs from there', async () => {
    const { runStore, pool, app } = await setup('history-plan-only', scriptedConductor(PLAN));
    const first = app();
    await first.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false, planOnly: true }, pool);
    const id = first.runs.currentRun.value!.id;
    expect(first.runs.currentRun.value?.phase).toBe('review');
    // Nothing was sent.
    expect(keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions')).toEqual([]);

    const { summaries } = await runStore.listSummaries({ limit: 10 });
    expect(summaries.map((s) => [s.id, s.status, s.steps])).toEqual([[id, 'planned', 2]]);

    const reloaded = app();
    expect(await reloaded.runs.openRun(id)).toBeUndefined();
    expect(reloaded.runs.currentRun.value?.phase).toBe('review');
    const review = reloaded.runs.pendingReview.value!;
    expect(review.planOnly).toBe(true);
    expect(review.plan.steps.map((s) => s.task)).toEqual(['Say hello', 'Repeat it']);
    expect(review.pool.map((w) => w.label)).toEqual(['Shouter', 'Parrot']);

    await reloaded.runs.runReviewed(review.plan);
    await reloaded.runs.whenIdle();
    expect(reloaded.runs.currentRun.value?.phase).toBe('done');
    const stored = await runStore.getRun(id);
    expect(stored?.run.status).toBe('done');
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'done']);
  });

  it('times a plan imported from an export, and run here, from when it ran here, not from its export', async () => {
    const { runStore, pool, app } = await setup('history-import-time', scriptedConductor(PLAN));
    const first = app();
    await first.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false, planOnly: true }, pool);
    const stored = (await runStore.getRun(first.runs.currentRun.value!.id))!;
    // Planned on another device a year ago, exported, imported here today (the import is History's newest).
    const year = 365 * 24 * 3_600_000;
    const old = {
      ...stored.run,
      id: 'imported-plan',
      createdAt: Date.now() - year,
      updatedAt: Date.now() - year,
    };
    const here = app();
    expect(await here.runs.importRun(exportRunJson(old, []))).toMatchObject({ ok: true, duplicate: false });
    const opened = Date.now();
    expect(await here.runs.openRun('imported-plan')).toBeUndefined();
    await here.runs.runReviewed(here.runs.pendingReview.value!.plan);
    await here.runs.whenIdle();
    const view = here.runs.currentRun.value!;
    expect(view.phase).toBe('done');
    // Its time is within the time since it was opened here: not the year since it was asked elsewhere.
    const now = Date.now();
    expect(runElapsed(view, now)).toBeLessThanOrEqual(now - opened);
  });

  it('keeps a plan waiting for review, and a discarded one as discarded', async () => {
    const { runStore, pool, app } = await setup('history-review', scriptedConductor(PLAN));
    const state = app();
    await state.runs.ask({ question: 'Greet me.', mode: 'conductor', review: true }, pool);
    const id = state.runs.currentRun.value!.id;
    expect((await runStore.getRun(id))?.run).toMatchObject({ status: 'planned', question: 'Greet me.' });
    expect((await runStore.getRun(id))?.run.planOnly).toBeUndefined();

    state.runs.discardReview();
    await expect
      .poll(async () => (await runStore.getRun(id))?.run)
      .toMatchObject({ status: 'cancelled', error: 'Plan discarded.' });
  });

  it('keeps a run whose planning failed, saying what failed in words, the engine text behind details', async () => {
    const { runStore, pool, app } = await setup('history-planning-failed', failing);
    const state = app();
    await state.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    const view = state.runs.currentRun.value!;
    expect(view.phase).toBe('failed');
    expect(view.error).toBe('Planning failed. The on-device model could not read your question.');
    expect(view.error).not.toMatch(/llama|unordered_map/);
    expect(view.errorDetails).toEqual([
      'EngineFailure: llama.cpp failed: Failed to format input: unordered_map::at: key not found',
    ]);
    // Try again asks the same question the same way.
    expect(view.retry).toEqual({ mode: 'conductor', review: false });

    const stored = await runStore.getRun(view.id);
    expect(stored?.run).toMatchObject({
      status: 'planning-failed',
      question: 'Greet me.',
      error: view.error,
      errorDetails: view.errorDetails,
    });
    const reloaded = app();
    await reloaded.runs.openRun(view.id);
    expect(reloaded.runs.currentRun.value).toMatchObject({
      phase: 'failed',
      error: view.error,
      errorDetails: view.errorDetails,
      retry: { mode: 'conductor', review: false },
    });
  });
});

describe('a planning failure after steps began', () => {
  it('stops the steps the stream started and keeps them, under the planning failure', async () => {
    const partial = '{"thought":"t","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2"';
    const host = new EngineHost(async () => ({
      ...scriptedEngine(partial),
      async generate(request) {
        for (const piece of partial.match(/.{1,4}/gs) ?? []) {
          request.onToken(piece);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        throw new EngineError('EngineFailure', 'llama.cpp failed: something inside');
      },
    }));
    const conductor: RunConductor = {
      plan: (request, onEvent) => host.plan({ ...request, model, requestId: 'p' }, onEvent),
      replan: () => Promise.reject(new Error('unused')),
      chat: () => Promise.reject(new Error('unused')),
    };
    const { runStore, pool, app } = await setup('history-planning-failed-streamed', conductor);
    const state = app();
    await state.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false }, pool);
    await state.runs.whenIdle();
    const view = state.runs.currentRun.value!;
    // The stopped run's own end does not replace what failed.
    expect(view.phase).toBe('failed');
    expect(view.error).toMatch(/^Planning failed\. /);
    const stored = await runStore.getRun(view.id);
    expect(stored?.run.status).toBe('planning-failed');
    expect(stored?.run.error).toBe(view.error);
    expect(stored?.steps.map((s) => s.task)).toEqual(['Say hello']);
  });
});
