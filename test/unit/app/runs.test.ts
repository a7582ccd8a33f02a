import { describe, expect, it } from 'vitest';
import { newRunView } from '../../../src/app/runs/run-model.ts';
import type { RunServices } from '../../../src/app/runs/run-services.ts';
import { createRuns } from '../../../src/app/runs/runs.ts';
import { viewFromRecord } from '../../../src/app/runs/stored-view.ts';
import type { RunRecord, StepRecord } from '../../../src/records/runs-db.ts';

function record(status: RunRecord['status']): RunRecord {
  return {
    id: 'r1',
    question: 'q',
    mode: 'conductor',
    pool: [],
    plan: { thought: 't', steps: [] },
    planComplete: true,
    includeQuestion: true,
    status,
    createdAt: 0,
    updatedAt: 30,
    totals: { promptTokens: 0, completionTokens: 0, cost: 0, steps: 3, done: 2, failed: 1, cancelled: 0 },
    answer: 'the answer',
  };
}

function step(index: number, worker: string, state: StepRecord['state']): StepRecord {
  return {
    runId: 'r1',
    index,
    worker,
    task: 't',
    sees: 'all',
    depth: 0,
    state,
    text: `text ${index}`,
    timings: { queuedAt: 0, startedAt: 1, endedAt: 10 + index },
    attempts: 1,
  };
}

describe('a stored run as the Watch screen shows it', () => {
  it('marks the last non-self step as final, as the executor does for a live run', () => {
    const steps = [step(0, 'w1', 'failed'), step(1, 'w2', 'done'), step(2, 'self', 'done')];
    expect(viewFromRecord(record('partial'), steps).finalStep).toBe(1);
    expect(viewFromRecord(record('done'), steps).finalStep).toBe(1);
  });

  it('names no final step while the stored run is still running (a resume may add steps)', () => {
    expect(viewFromRecord(record('running'), [step(0, 'w1', 'done')]).finalStep).toBeUndefined();
  });
});

describe('the run as drawn', () => {
  it('follows the run on screen a task behind, changes that come before a draw drawn once, the last one', async () => {
    // Nothing here runs a plan: the services are never called.
    const runs = createRuns({} as RunServices);
    const view = { ...newRunView('a', 'q?', 'conductor', 0), phase: 'running' as const };
    const drawn: unknown[] = [];
    const dispose = runs.drawnRun.subscribe((v) => drawn.push(v));
    drawn.length = 0;
    runs.currentRun.value = { ...view, planText: 'x' };
    const last = { ...view, planText: 'xy' };
    runs.currentRun.value = last;
    expect(runs.drawnRun.value).toBeUndefined();
    await expect.poll(() => runs.drawnRun.value).toBe(last);
    expect(drawn).toEqual([last]);
    dispose();
  });

  it('draws each state that outlasts a draw: running, then done', async () => {
    const runs = createRuns({} as RunServices);
    const base = newRunView('a', 'q?', 'conductor', 0);
    const phases: string[] = [];
    const dispose = runs.drawnRun.subscribe((v) => {
      if (v) phases.push(v.phase);
    });
    runs.currentRun.value = { ...base, phase: 'running' };
    await expect.poll(() => runs.drawnRun.value?.phase).toBe('running');
    runs.currentRun.value = { ...base, phase: 'done' };
    await expect.poll(() => runs.drawnRun.value?.phase).toBe('done');
    expect(phases).toEqual(['running', 'done']);
    dispose();
  });
});
