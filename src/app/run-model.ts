import { queuedStatus, totalsOf } from '../executor/status.ts';
import type { ExecutorEvent, RunStatus, RunTotals, StepStatus, Usage } from '../executor/types.ts';
import type { Step } from '../plan/index.ts';

export type Mode = 'router' | 'conductor';

/** Where a run is, from the page's point of view: planning and review come before the executor's states. */
export type RunPhase = 'planning' | 'review' | 'running' | RunStatus;

/** Everything the Watch screen shows about one run. Built from the bridge's and executor's events. */
export interface RunView {
  id: string;
  question: string;
  mode: Mode;
  phase: RunPhase;
  /** The conductor's raw output as it streams (shown while planning). */
  planText: string;
  thought?: string;
  /** Steps delivered by the conductor before the executor has them (planning). */
  plannedSteps: Step[];
  steps: StepStatus[];
  startedAt: number;
  endedAt?: number;
  finalStep?: number;
  answer?: string;
  totals?: RunTotals;
  error?: string;
  /** Set when the conductor's plan was replaced by a single-step fallback, with why. */
  fallback?: string;
  /** Worker ids in the run's pool order, for stable colours. */
  workerOrder?: string[];
  /** The run's pool's labels by worker id: the run view names workers by these, not by ids. */
  workerLabels?: Record<string, string>;
  /** Conductor statistics (tokens per second, planning time). */
  planStats?: { ms?: number; tokens?: number; tokensPerSec?: number };
}

export function newRunView(id: string, question: string, mode: Mode, now: number = Date.now()): RunView {
  return { id, question, mode, phase: 'planning', planText: '', plannedSteps: [], steps: [], startedAt: now };
}

function patchStep(view: RunView, index: number, patch: (step: StepStatus) => StepStatus): RunView {
  const steps = view.steps.slice();
  const current = steps[index];
  if (!current) return view;
  steps[index] = patch(current);
  return { ...view, steps };
}

/** Tokens and cost over the steps (the executor gives totals at the end; this is the live figure). */
export const liveTotals = totalsOf;

/** Applies one executor event. Pure: returns a new view. */
export function applyEvent(view: RunView, event: ExecutorEvent, now: number = Date.now()): RunView {
  switch (event.type) {
    case 'step-queued': {
      const steps = view.steps.slice();
      steps[event.index] = queuedStatus(event.step, event.index, event.depth, now);
      return {
        ...view,
        phase: view.phase === 'planning' || view.phase === 'review' ? 'running' : view.phase,
        steps,
      };
    }
    case 'steps-added': {
      const steps = view.steps.slice();
      event.steps.forEach((step, i) => {
        const index = event.from + i;
        steps[index] ??= queuedStatus(step, index, event.depth, now);
      });
      return { ...view, steps };
    }
    case 'step-started':
      return patchStep(view, event.index, (s) => ({
        ...s,
        state: 'running',
        attempts: event.attempt,
        error: undefined,
        text: event.attempt > 1 ? '' : s.text,
        timings: { ...s.timings, startedAt: s.timings.startedAt ?? now },
      }));
    case 'step-delta':
      return patchStep(view, event.index, (s) => ({
        ...s,
        state: 'running',
        text: event.answer,
        timings: { ...s.timings, firstTokenAt: s.timings.firstTokenAt ?? now },
      }));
    case 'step-retrying':
      return patchStep(view, event.index, (s) => ({
        ...s,
        error: `Retrying in ${Math.round(event.delayMs / 100) / 10} s: ${event.reason}`,
        attempts: event.attempt,
      }));
    case 'step-done':
      return patchStep(view, event.index, (s) => {
        const next: StepStatus = {
          ...s,
          state: 'done',
          text: event.answer,
          error: undefined,
          timings: { ...s.timings, endedAt: now },
        };
        if (event.usage) next.usage = event.usage as Usage;
        if (event.cost !== undefined) next.cost = event.cost;
        return next;
      });
    case 'step-failed':
      return patchStep(view, event.index, (s) => ({
        ...s,
        state: 'failed',
        error: event.reason,
        timings: { ...s.timings, endedAt: now },
      }));
    case 'step-cancelled':
      return patchStep(view, event.index, (s) => ({
        ...s,
        state: 'cancelled',
        error: event.reason,
        timings: { ...s.timings, endedAt: s.timings.startedAt ? now : s.timings.endedAt },
      }));
    case 'run-done': {
      const r = event.result;
      const next: RunView = {
        ...view,
        phase: r.status,
        steps: r.steps,
        totals: r.totals,
        endedAt: r.endedAt,
      };
      if (r.finalStep !== undefined) next.finalStep = r.finalStep;
      if (r.answer !== undefined) next.answer = r.answer;
      if (r.error !== undefined) next.error = r.error;
      return next;
    }
  }
}

/** The index whose answer is the final one: the last step that is not the conductor itself. */
export function finalStepIndex(steps: readonly Pick<StepStatus, 'worker'>[]): number | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.worker !== 'self') return i;
  return undefined;
}

export function isActive(phase: RunPhase): boolean {
  return phase === 'planning' || phase === 'running';
}
