import type { StepStatus } from '../records/run-types.ts';
import { engineErrorWords } from '../shared/engine-errors.ts';
import { type Step, type ValidateOptions, validatePlan } from '../shared/plan/index.ts';
import { SELF_WORKER } from '../shared/worker-ids.ts';
import { raceAbort } from './abort.ts';
import type { Replanner } from './types.ts';

/** What a `self` step decided: keep the current answer, or add corrective steps after every step. */
export type SelfCheckOutcome = { note: string; add?: Step[] };

export interface SelfCheckInput {
  index: number;
  depth: number;
  question: string;
  /** The run's live steps, statuses and dependencies (read after the conductor answers, not copied). */
  steps: readonly Step[];
  statuses: readonly StepStatus[];
  deps: readonly number[][];
  conductor: Replanner | undefined;
  maxDepth: number;
  maxTotalSteps: number;
  /** The run's rules for a plan's steps (workers, steps per plan). */
  validation: ValidateOptions;
  signal: AbortSignal;
}

/**
 * One `self` step, once the plan is complete: asks the conductor for corrective steps when there is
 * something to check and room for more, and says what it did in a note (the step's text). Throws when
 * the conductor's steps are not valid.
 */
export async function selfCheck(input: SelfCheckInput): Promise<SelfCheckOutcome> {
  const { index, depth, steps, statuses, conductor, maxDepth, maxTotalSteps, signal } = input;
  if (!conductor) return { note: 'Accepted the current answer (no conductor to ask).' };
  // A self-check that sees no answer has nothing to check: asking the conductor would cost a whole
  // generation on the device for nothing (small conductors do write such steps first).
  const seenAnswers = (input.deps[index] ?? []).filter((i) => {
    const seen = statuses[i];
    return seen?.state === 'done' && seen.worker !== SELF_WORKER;
  });
  if (seenAnswers.length === 0) return { note: 'Nothing to check yet: this self-check sees no answer.' };
  if (depth >= maxDepth) {
    return { note: `Accepted the current answer: the recursion limit (${maxDepth}) is reached.` };
  }
  let corrective: Step[];
  try {
    corrective = await raceAbort(
      conductor.replan({
        question: input.question,
        steps: [...steps],
        answers: statuses.map((s) => (s.state === 'done' && s.worker !== SELF_WORKER ? s.text : undefined)),
        depth: depth + 1,
        signal,
      }),
      signal,
    );
  } catch (error) {
    // The step's error is read on its card: the engine's failure in words, not llama.cpp's own text.
    const words = signal.aborted ? undefined : engineErrorWords(error);
    if (words === undefined) throw error;
    throw new Error(`The self-check could not run. ${words} The answers above stand, unchecked.`, {
      cause: error,
    });
  }
  if (corrective.length === 0) return { note: 'Accepted the current answer.' };
  const offset = steps.length;
  const checked = validatePlan({ steps: corrective }, { ...input.validation, offset, minSteps: 0 });
  if (!checked.ok) throw new Error(`The conductor's corrective steps are not valid: ${checked.message}`);
  const added = checked.plan.steps;
  if (offset + added.length > maxTotalSteps) {
    return {
      note: `Accepted the current answer: ${added.length} more steps would pass the limit of ${maxTotalSteps} steps per run.`,
    };
  }
  const last = offset + added.length - 1;
  return { note: offset === last ? `Added step ${offset}.` : `Added steps ${offset}–${last}.`, add: added };
}
