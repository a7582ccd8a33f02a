import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRunJson, parseRunImport } from '../../../src/app/export.ts';
import {
  applyEvent,
  enterReview,
  leaveReview,
  liveTotals,
  newRunView,
  type RunView,
  runElapsed,
  snapshotOfView,
} from '../../../src/app/runs/run-model.ts';
import { type RunHandle, startRun } from '../../../src/executor/executor.ts';
import { finalStepIndex } from '../../../src/executor/step-status.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { StepStatus } from '../../../src/records/run-types.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  await provider.close();
});

function testWorker(id: string, model: string): WorkerSpec {
  return workerSpec({
    id,
    providerId: 'test',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 8,
  });
}

/** Step 0 as the executor's snapshot would carry it, changed by `patch`. */
function snap(patch: Partial<StepStatus> = {}): StepStatus {
  return {
    index: 0,
    worker: 'w1',
    task: 't',
    sees: [],
    depth: 0,
    state: 'queued',
    text: '',
    timings: {},
    attempts: 0,
    ...patch,
  };
}

describe('run view from executor events', () => {
  it('follows a step from queued to done, with timings, usage and cost', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(
      view,
      {
        type: 'step-queued',
        index: 0,
        step: { worker: 'w1', task: 't', sees: [] },
        depth: 0,
        status: snap({ timings: { queuedAt: 10 } }),
      },
      10,
    );
    expect(view.phase).toBe('running');
    expect(view.steps[0]).toMatchObject({ state: 'queued', timings: { queuedAt: 10 } });
    const running = { state: 'running' as const, attempts: 1 };
    view = applyEvent(view, {
      type: 'step-started',
      index: 0,
      attempt: 1,
      status: snap({ ...running, timings: { queuedAt: 10, startedAt: 20 } }),
    });
    view = applyEvent(view, {
      type: 'step-delta',
      index: 0,
      text: 'He',
      answer: 'He',
      status: snap({ ...running, text: 'He', timings: { queuedAt: 10, startedAt: 20, firstTokenAt: 30 } }),
    });
    view = applyEvent(view, {
      type: 'step-delta',
      index: 0,
      text: 'llo',
      answer: 'Hello',
      status: snap({ ...running, text: 'Hello', timings: { queuedAt: 10, startedAt: 20, firstTokenAt: 30 } }),
    });
    expect(view.steps[0]).toMatchObject({
      state: 'running',
      text: 'Hello',
      timings: { startedAt: 20, firstTokenAt: 30 },
    });
    const usage = { promptTokens: 5, completionTokens: 2 };
    view = applyEvent(view, {
      type: 'step-done',
      index: 0,
      answer: 'Hello',
      usage,
      cost: 0.5,
      status: snap({
        state: 'done',
        attempts: 1,
        text: 'Hello',
        usage,
        cost: 0.5,
        timings: { queuedAt: 10, startedAt: 20, firstTokenAt: 30, endedAt: 50 },
      }),
    });
    expect(view.steps[0]).toMatchObject({ state: 'done', timings: { endedAt: 50 }, cost: 0.5 });
    expect(liveTotals(view.steps)).toMatchObject({
      promptTokens: 5,
      completionTokens: 2,
      cost: 0.5,
      done: 1,
    });
  });

  it('clears the partial answer when a retry starts over, and keeps the retry reason meanwhile', async () => {
    // The executor's own events (a real run against the test provider, whose first answer is cut short).
    provider.setModel({ id: 'cut-once', behaviour: { kind: 'echo' }, fault: { kind: 'cut', times: 1 } });
    let view = newRunView('r', 'q', 'conductor', 0);
    const seen: { event: ExecutorEvent; step: StepStatus | undefined; live: StepStatus[] }[] = [];
    let handle: RunHandle | undefined;
    handle = startRun({
      runId: 'r',
      question: 'one two three four five six seven eight',
      plan: { steps: [{ worker: 'w1', task: 't', sees: [] }] },
      pool: [testWorker('w1', 'cut-once')],
      transport: createOpenAITransport({ fetch: directFetch }),
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      onEvent: (event) => {
        view = applyEvent(view, event);
        seen.push({ event, step: view.steps[0], live: handle?.steps() ?? [] });
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const retrying = seen.find((x) => x.event.type === 'step-retrying');
    expect(retrying?.step?.error).toBe(retrying?.event.type === 'step-retrying' && retrying.event.reason);
    expect(retrying?.step?.text).not.toBe('');
    const second = seen.find((x) => x.event.type === 'step-started' && x.event.attempt === 2);
    expect(second?.step).toMatchObject({ text: '', attempts: 2, error: undefined });
    // After every event the page holds the executor's step exactly, timings included: one run state.
    for (const x of seen.filter((y) => y.live.length > 0)) expect([x.step]).toEqual(x.live);
    expect(view.steps).toEqual(result.steps);
  });

  it('ignores events for unknown steps and finds the final step (not the conductor itself)', () => {
    const view = newRunView('r', 'q', 'router', 0);
    expect(applyEvent(view, { type: 'step-started', index: 3, attempt: 1, status: snap({ index: 3 }) })).toBe(
      view,
    );
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
      {
        type: 'step-queued',
        index: 0,
        step: { worker: 'w1', task: 't', sees: [] },
        depth: 0,
        status: snap({ timings: { queuedAt: 62_000 } }),
      },
      62_000,
    );
    expect(view.phase).toBe('running');
    expect(runElapsed(view, 66_000)).toBe(6_000);
    // Running the reviewed plan leaves review too, whichever comes first; leaving twice changes nothing.
    expect(leaveReview(view, 90_000)).toBe(view);
    view = { ...view, endedAt: 70_000 };
    expect(runElapsed(view, 99_000)).toBe(10_000);
  });

  it('times a resumed run by its active spans, not the hours it sat unfinished', () => {
    const H = 3_600_000;
    const done = (index: number, startedAt: number, endedAt: number) =>
      snap({ index, state: 'done', timings: { queuedAt: 1_000, startedAt, endedAt } });
    // Planned in 1 s; step 0 ran 2 s; the page was closed; resumed 3 h later, step 1 ran 3 s.
    const stored: RunView = {
      ...newRunView('r', 'q', 'conductor', 0),
      phase: 'done',
      steps: [done(0, 1_000, 3_000), done(1, 3 * H, 3 * H + 3_000)],
      endedAt: 3 * H + 3_000,
    };
    expect(runElapsed(stored, 4 * H)).toBe(6_000);
    // While resumed: a step waiting its turn counts from the resume, not from its first session's queue time.
    const resumed: RunView = {
      ...stored,
      phase: 'running',
      endedAt: undefined,
      resumedAt: 3 * H,
      steps: [done(0, 1_000, 3_000), snap({ index: 1, timings: { queuedAt: 1_000 } })],
    };
    expect(runElapsed(resumed, 3 * H + 500)).toBe(3_500);
    // Planning time, once known, counts whole, though steps ran while the plan was still being written.
    expect(runElapsed({ ...stored, planStats: { ms: 5_000 } }, 4 * H)).toBe(5_000 + 3_000);
  });

  it('keeps every request of a step, so live totals count failed attempts and reruns', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(view, {
      type: 'step-queued',
      index: 0,
      step: { worker: 'w1', task: 't', sees: [] },
      depth: 0,
      status: snap(),
    });
    const out = {
      attempt: 1,
      outcome: 'in-flight' as const,
      promptTokens: 10,
      completionTokens: 0,
      estimated: true as const,
      cost: 0.01,
    };
    view = applyEvent(view, {
      type: 'step-request',
      index: 0,
      requestIndex: 0,
      request: out,
      status: snap({ requests: [out] }),
    });
    expect(liveTotals(view.steps)).toMatchObject({ promptTokens: 10, requests: 1, estimated: true });
    const failed = { ...out, outcome: 'failed' as const, completionTokens: 30, cost: 0.04 };
    const answered = {
      attempt: 2,
      outcome: 'answered' as const,
      promptTokens: 9,
      completionTokens: 20,
      cost: 0.03,
    };
    view = applyEvent(view, {
      type: 'step-request',
      index: 0,
      requestIndex: 0,
      request: failed,
      status: snap({ requests: [failed] }),
    });
    view = applyEvent(view, {
      type: 'step-request',
      index: 0,
      requestIndex: 1,
      request: answered,
      status: snap({ requests: [failed, answered] }),
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
      status: snap(),
    });
    view = applyEvent(view, {
      type: 'step-delta',
      index: 0,
      text: 'kept',
      answer: 'kept',
      status: snap({ state: 'running', text: 'kept' }),
    });
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
