import type { Step } from '../plan/index.ts';
import type { RunTotals, StepStatus } from './types.ts';

/** A step's status when it joins a run: queued, no answer, no attempt yet. */
export function queuedStatus(step: Step, index: number, depth: number, now: number): StepStatus {
  return {
    index,
    worker: step.worker,
    task: step.task,
    sees: step.sees,
    depth,
    state: 'queued',
    text: '',
    timings: { queuedAt: now },
    attempts: 0,
  };
}

/** Tokens, cost and step counts over a run's steps (live while it runs, final when it has ended). */
export function totalsOf(steps: readonly StepStatus[]): RunTotals {
  const totals: RunTotals = {
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    steps: steps.length,
    done: 0,
    failed: 0,
    cancelled: 0,
  };
  for (const step of steps) {
    totals.promptTokens += step.usage?.promptTokens ?? 0;
    totals.completionTokens += step.usage?.completionTokens ?? 0;
    totals.cost += step.cost ?? 0;
    if (step.state === 'done') totals.done++;
    if (step.state === 'failed') totals.failed++;
    if (step.state === 'cancelled') totals.cancelled++;
  }
  return totals;
}
