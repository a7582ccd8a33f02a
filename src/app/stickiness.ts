import { categoryOf } from '../learning/features.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { AskMode } from './runs/run-model.ts';
import type { TurnContext } from './turn-context.ts';

/** The one-line reason a follow-up went back to the worker of the turn before. */
export const SAME_WORKER_REASON = 'Same worker as the last turn.';

/**
 * In router and auto mode, a follow-up goes back to the worker that wrote the last turn's answer (as
 * OpenRouter's Auto router keeps its pick while the work goes well), with no planning, unless:
 * - the question changes kind: auto mode's categories (src/learning/features.ts) name another one for it
 *   than for the last question (a follow-up with no kind of its own, "shorter, please", keeps the kind);
 * - the user marked that answer bad;
 * - that worker is no longer in the pool (or is off).
 * Conductor mode always plans: the user asked for a workflow.
 */
export function stickyWorker(
  input: { question: string; mode: AskMode; thread?: TurnContext },
  enabled: readonly WorkerSpec[],
  markedBad: (runId: string) => boolean,
): WorkerSpec | undefined {
  if (input.mode === 'conductor') return undefined;
  const last = input.thread?.history?.turns.at(-1);
  const lastRunId = input.thread?.link.parentRunId;
  if (!last?.worker || last.answer === undefined || lastRunId === undefined) return undefined;
  if (markedBad(lastRunId)) return undefined;
  const kind = categoryOf(input.question);
  if (kind !== 'other' && kind !== categoryOf(last.question)) return undefined;
  return enabled.find((w) => w.id === last.worker);
}
