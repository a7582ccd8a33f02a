import type { Attachment } from '../../attachments/types.ts';
import { type AnswerLength, estimatePlan, type PlanEstimate } from '../../executor/estimate.ts';
import type { Step } from '../../shared/plan/index.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { withAttachments } from '../run-files.ts';
import { type TurnContext, turnEstimate } from '../turn-context.ts';

/** What a run's estimate is made of: its question and plan, and what its steps will carry besides. */
export interface RunEstimateInput {
  question: string;
  steps: readonly Step[];
  pool: readonly WorkerSpec[];
  /** Past answer lengths by `answerKey`; absent, every worker gets the default length. */
  answerLengths?: ReadonlyMap<string, AnswerLength>;
  /** The thread the run is a turn of: a follow-up's steps carry the earlier turns, so the price counts them. */
  turn?: TurnContext | undefined;
  /** The question's files: each step's input counts the ones it gets. */
  files?: readonly Attachment[] | undefined;
}

/**
 * A run's estimate, the one way the review, the plan as it streams in, a direct call to one worker and
 * the run itself price it: its steps as the executor will send them, with the thread's earlier turns and
 * the question's files.
 */
export function estimateRun(run: RunEstimateInput): PlanEstimate {
  return estimatePlan({
    question: run.question,
    steps: run.steps,
    pool: run.pool,
    ...(run.answerLengths ? { answerLengths: run.answerLengths } : {}),
    ...turnEstimate(run.turn),
    ...withAttachments(run.files ?? []),
  });
}
