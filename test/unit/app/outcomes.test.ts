import { describe, expect, it } from 'vitest';
import { benchOutcome } from '../../../src/app/bench/bench-outcome.ts';
import { outcomeFromView } from '../../../src/app/outcomes.ts';
import type { RunView } from '../../../src/app/runs/run-model.ts';
import type { BenchItemResult } from '../../../src/evaluation/bench-item.ts';
import type { BenchRunRecord } from '../../../src/evaluation/bench-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

function spec(id: string, model: string): WorkerSpec {
  return workerSpec({
    id,
    label: id.toUpperCase(),
    providerId: 'openai',
    baseURL: 'https://api.openai.com/v1',
    model,
    maxConcurrency: 1,
  });
}

const totals = {
  steps: 2,
  done: 2,
  failed: 0,
  promptTokens: 10,
  completionTokens: 20,
  cost: 0.0125,
};

describe('outcomeFromView', () => {
  it('keeps the question, the plan as written, its workers with their models, the cost and the time', () => {
    const view = {
      id: 'run-1',
      question: 'Plan a trip to Lima',
      mode: 'router',
      phase: 'done',
      planText: '',
      thought: 'One step.',
      plannedSteps: [{ worker: 'w1', task: 'Plan it.', sees: [] }],
      steps: [],
      startedAt: 1_000,
      endedAt: 4_000,
      reviewMs: 500,
      totals,
      pool: [spec('w1', 'gpt-4o-mini'), spec('w2', 'gpt-5')],
    } as unknown as RunView;
    expect(outcomeFromView(view, false, 9_000)).toEqual({
      runId: 'run-1',
      question: 'Plan a trip to Lima',
      strategy: 'router',
      plan: { thought: 'One step.', steps: [{ worker: 'w1', task: 'Plan it.', sees: [] }] },
      workerIds: ['w1'],
      workerModels: { w1: 'gpt-4o-mini', w2: 'gpt-5' },
      good: false,
      source: 'user',
      costUsd: 0.0125,
      // The time the plan waited for review is not the run's.
      latencyMs: 2_500,
      at: 9_000,
    });
  });

  it('credits the strategy auto mode chose, and keeps no workflow for a direct call to one worker', () => {
    const view = {
      id: 'run-2',
      question: 'Who wrote Hamlet?',
      // Stored as a router run: one step, no planner.
      mode: 'router',
      phase: 'done',
      planText: '',
      plannedSteps: [{ worker: 'w1', task: 'Answer the question.', sees: [] }],
      steps: [],
      startedAt: 1_000,
      endedAt: 2_000,
      totals,
      chosenBy: { by: 'auto', strategy: 'single:w1', reason: 'Trying w1.' },
    } as unknown as RunView;
    const outcome = outcomeFromView(view, true, 3_000);
    expect(outcome.strategy).toBe('single:w1');
    expect(outcome).not.toHaveProperty('plan');
    expect(outcome.workerIds).toEqual(['w1']);
  });
});

describe('benchOutcome', () => {
  const record = {
    id: 'b1',
    tasks: [{ id: 't1', question: 'What is 2+2?', answer: '4', kind: 'exact' }],
    strategies: [
      { id: 's-single', label: 'One', config: { kind: 'single', worker: 'w1' } },
      { id: 's-cond', label: 'Conductor', config: { kind: 'conductor' } },
    ],
    pool: [spec('w1', 'gpt-4o-mini')],
  } as unknown as BenchRunRecord;
  const result = {
    taskId: 't1',
    strategyId: 's-single',
    status: 'done',
    correct: true,
    cost: 0.001,
    latencyMs: 300,
    plan: { steps: [{ worker: 'w1', task: 'Answer.', sees: [] }] },
    finishedAt: 77,
  } as unknown as BenchItemResult;

  it('records a scored item with its scorer’s verdict, as a bench outcome', () => {
    expect(benchOutcome(record, result)).toEqual({
      runId: 'bench:b1:t1:s-single',
      question: 'What is 2+2?',
      strategy: 'single:w1',
      plan: result.plan,
      workerIds: ['w1'],
      workerModels: { w1: 'gpt-4o-mini' },
      good: true,
      source: 'bench',
      costUsd: 0.001,
      latencyMs: 300,
      at: 77,
    });
    expect(benchOutcome(record, { ...result, strategyId: 's-cond', correct: false })).toMatchObject({
      strategy: 'conductor',
      good: false,
    });
  });

  it('keeps nothing for an item that failed to run', () => {
    expect(benchOutcome(record, { ...result, status: 'failed' })).toBeUndefined();
  });
});
