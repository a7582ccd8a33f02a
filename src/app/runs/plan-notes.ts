import type { PlanResponse } from '../../shared/conductor-api.ts';
import type { Plan } from '../../shared/plan/index.ts';
import { type WorkerLabels, workerDisplayName } from '../worker-names.ts';

/**
 * What the run view says when the conductor's plan is not the one it first wrote: one sentence in the
 * user's words, and the validator's own messages (each once) behind a "details" disclosure.
 */
export interface PlanNote {
  text: string;
  details: string[];
}

/**
 * The note for a plan the conductor thread repaired or replaced, or undefined for a plan it wrote as is.
 * `kept` is how many streamed steps stood when the thread fell back (its last restart's `kept`): the
 * fallback's own step, when there was room for one, comes after them.
 */
export function planNote(
  response: Pick<PlanResponse, 'plan' | 'fallback' | 'repaired'>,
  kept: number,
  labels: WorkerLabels,
): PlanNote | undefined {
  if (response.fallback) {
    const { steps } = response.plan;
    const added = steps.length > kept ? steps.at(-1) : undefined;
    const written = kept === 1 ? 'step' : `${kept} steps`;
    const text = !added
      ? `The conductor's plan could not be used in full: only the ${written} it had written ${kept === 1 ? 'runs' : 'run'}.`
      : kept === 0
        ? `The conductor's plan could not be used, so ${workerDisplayName(added.worker, labels)} answers the question alone.`
        : `The conductor's plan could not be used in full, so ${workerDisplayName(added.worker, labels)} answers after the ${written} already running.`;
    return { text, details: response.fallback.issues ?? [response.fallback.reason] };
  }
  if (response.repaired) {
    return {
      text: "The conductor's first plan was invalid; it corrected it.",
      details: response.repaired.issues ?? [response.repaired.error],
    };
  }
  return undefined;
}

/** Whether `a` and `b` give every step the same worker, task, `sees` and pin. */
export function samePlan(a: Plan, b: Plan): boolean {
  const key = (plan: Plan) =>
    JSON.stringify(plan.steps.map((s) => [s.worker, s.task, s.sees, s.pin === true]));
  return key(a) === key(b);
}
