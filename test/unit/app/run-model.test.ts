import { describe, expect, it } from 'vitest';
import { exportRunJson, parseRunImport } from '../../../src/app/export.ts';
import {
  applyEvent,
  enterReview,
  finalStepIndex,
  leaveReview,
  liveTotals,
  newRunView,
  type RunView,
  runElapsed,
  snapshotOfView,
} from '../../../src/app/run-model.ts';

describe('run view from executor events', () => {
  it('follows a step from queued to done, with timings, usage and cost', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(
      view,
      { type: 'step-queued', index: 0, step: { worker: 'w1', task: 't', sees: [] }, depth: 0 },
      10,
    );
    expect(view.phase).toBe('running');
    expect(view.steps[0]).toMatchObject({ state: 'queued', timings: { queuedAt: 10 } });
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 1 }, 20);
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'He', answer: 'He' }, 30);
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'llo', answer: 'Hello' }, 40);
    expect(view.steps[0]).toMatchObject({
      state: 'running',
      text: 'Hello',
      timings: { startedAt: 20, firstTokenAt: 30 },
    });
    view = applyEvent(
      view,
      {
        type: 'step-done',
        index: 0,
        answer: 'Hello',
        usage: { promptTokens: 5, completionTokens: 2 },
        cost: 0.5,
      },
      50,
    );
    expect(view.steps[0]).toMatchObject({ state: 'done', timings: { endedAt: 50 }, cost: 0.5 });
    expect(liveTotals(view.steps)).toMatchObject({
      promptTokens: 5,
      completionTokens: 2,
      cost: 0.5,
      done: 1,
    });
  });

  it('clears the partial answer when a retry starts over, and keeps the retry reason meanwhile', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(view, {
      type: 'step-queued',
      index: 0,
      step: { worker: 'w1', task: 't', sees: [] },
      depth: 0,
    });
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 1 });
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'par', answer: 'par' });
    view = applyEvent(view, { type: 'step-retrying', index: 0, attempt: 1, delayMs: 1500, reason: '429' });
    expect(view.steps[0]!.error).toBe('Retrying in 1.5 s: 429');
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 2 });
    expect(view.steps[0]).toMatchObject({ text: '', attempts: 2, error: undefined });
  });

  it('ignores events for unknown steps and finds the final step (not the conductor itself)', () => {
    const view = newRunView('r', 'q', 'router', 0);
    expect(applyEvent(view, { type: 'step-started', index: 3, attempt: 1 })).toBe(view);
    expect(finalStepIndex([{ worker: 'w1' }, { worker: 'w2' }, { worker: 'self' }])).toBe(1);
    expect(finalStepIndex([])).toBeUndefined();
  });

  it("does not count the time the plan waited for review as the run's time", () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    // Planned for 2 s, reviewed for 60 s, then ran for 8 s.
    view = enterReview(view, 2_000);
    expect(runElapsed(view, 30_000)).toBe(2_000);
    view = applyEvent(
      view,
      { type: 'step-queued', index: 0, step: { worker: 'w1', task: 't', sees: [] }, depth: 0 },
      62_000,
    );
    expect(view.phase).toBe('running');
    expect(runElapsed(view, 66_000)).toBe(6_000);
    // Running the reviewed plan leaves review too, whichever comes first; leaving twice changes nothing.
    expect(leaveReview(view, 90_000)).toBe(view);
    view = { ...view, endedAt: 70_000 };
    expect(runElapsed(view, 99_000)).toBe(10_000);
  });

  it('keeps every request of a step, so live totals count failed attempts and reruns', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(view, {
      type: 'step-queued',
      index: 0,
      step: { worker: 'w1', task: 't', sees: [] },
      depth: 0,
    });
    const out = {
      attempt: 1,
      outcome: 'in-flight' as const,
      promptTokens: 10,
      completionTokens: 0,
      estimated: true as const,
      cost: 0.01,
    };
    view = applyEvent(view, { type: 'step-request', index: 0, requestIndex: 0, request: out });
    expect(liveTotals(view.steps)).toMatchObject({ promptTokens: 10, requests: 1, estimated: true });
    view = applyEvent(view, {
      type: 'step-request',
      index: 0,
      requestIndex: 0,
      request: { ...out, outcome: 'failed', completionTokens: 30, cost: 0.04 },
    });
    view = applyEvent(view, {
      type: 'step-request',
      index: 0,
      requestIndex: 1,
      request: { attempt: 2, outcome: 'answered', promptTokens: 9, completionTokens: 20, cost: 0.03 },
    });
    const totals = liveTotals(view.steps);
    expect(totals).toMatchObject({ promptTokens: 19, completionTokens: 50, requests: 2, estimated: true });
    expect(totals.cost).toBeCloseTo(0.07, 12);
  });

  it('says at once when the run is not being saved, and when it is again; an export then holds the page copy', () => {
    let view: RunView = { ...newRunView('r', 'q', 'conductor', 0), totals: liveTotals([]) };
    const pool = [
      {
        id: 'w1',
        label: 'Writer',
        strengths: '',
        providerId: 'custom',
        baseURL: 'http://127.0.0.1:8787/v1',
        model: 'm',
        maxConcurrency: 1,
        enabled: true,
      },
    ];
    view = applyEvent(view, {
      type: 'run-started',
      limits: { maxSteps: 5, maxDepth: 2, maxTotalSteps: 15 },
      pool,
    });
    expect(view.limits?.maxTotalSteps).toBe(15);
    // Totals are live from the start, not a stored run's (a rerun starts from its record).
    expect(view.totals).toBeUndefined();
    view = applyEvent(view, {
      type: 'step-queued',
      index: 0,
      step: { worker: 'w1', task: 't', sees: [] },
      depth: 0,
    });
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'kept', answer: 'kept' });
    view = applyEvent(view, { type: 'persistence-failed', reason: 'QuotaExceededError: full' });
    expect(view.notSaved).toBe('QuotaExceededError: full');
    const { run, steps } = snapshotOfView(view, 5);
    expect(run).toMatchObject({
      id: 'r',
      question: 'q',
      status: 'running',
      plan: { steps: [{ worker: 'w1', task: 't' }] },
    });
    expect(steps).toMatchObject([{ runId: 'r', index: 0, text: 'kept' }]);
    // The export made from it reads back as a run (its plan checked against its pool).
    const back = parseRunImport(exportRunJson(run, steps));
    expect(back.ok && back.data.steps.map((x) => x.text)).toEqual(['kept']);
    view = applyEvent(view, { type: 'persistence-restored' });
    expect(view.notSaved).toBeUndefined();
  });
});
