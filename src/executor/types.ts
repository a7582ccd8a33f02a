import type {
  RequestSpend,
  RunStatus,
  RunTotals,
  StepStatus,
  StepWait,
  Takeover,
  Usage,
} from '../records/run-types.ts';
import type { Step } from '../shared/plan/index.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/** What a `self` step hands the conductor: the question, the workflow so far and every answer. */
export interface ReplanInput {
  question: string;
  /** Every step of the workflow so far, in order (global indices). */
  steps: readonly Step[];
  /** `answers[i]` is step i's answer, or undefined when step i has none (failed, cancelled, a `self` step). */
  answers: readonly (string | undefined)[];
  /** The depth the corrective steps will have: 1 for a `self` step of the first plan. */
  depth: number;
  /** Aborted when the run (or the `self` step) is cancelled. */
  signal: AbortSignal;
}

/**
 * The replanner: the conductor as the executor sees it (the on-device engine implements it). `replan`
 * returns corrective steps, appended after every existing step (their `sees` use global indices), or `[]`
 * to accept the current last answer.
 */
export interface Replanner {
  replan(input: ReplanInput): Promise<Step[]>;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  /** The final answer: the last non-`self` step's answer, when that step is done. */
  answer?: string;
  /** Index of the step whose answer is the final answer (the last non-`self` step). */
  finalStep?: number;
  steps: StepStatus[];
  failed: { index: number; reason: string }[];
  totals: RunTotals;
  /** Set when the plan itself could not be read or the run was cancelled. */
  error?: string;
  startedAt: number;
  endedAt: number;
}

/**
 * What every step event carries: the step as the executor holds it just after the change (a copy, timings
 * included), so a listener stores it as it is instead of working the change out again.
 */
interface StepSnapshot {
  index: number;
  status: StepStatus;
}

export type StepExecutorEvent =
  | ({ type: 'step-queued'; step: Step; depth: number } & StepSnapshot)
  | ({ type: 'step-started'; attempt: number } & StepSnapshot)
  | ({ type: 'step-delta'; text: string; answer: string } & StepSnapshot)
  /** A piece of the model's reasoning: the stream is alive, the answer has not grown. */
  | ({ type: 'step-reasoning'; text: string; reasoning: string } & StepSnapshot)
  | ({ type: 'step-retrying'; attempt: number; delayMs: number; reason: string } & StepSnapshot)
  | ({ type: 'step-done'; answer: string; usage?: Usage; cost?: number } & StepSnapshot)
  | ({ type: 'step-failed'; reason: string } & StepSnapshot)
  | ({ type: 'step-cancelled'; reason: string } & StepSnapshot)
  | ({ type: 'step-request'; request: RequestSpend; requestIndex: number } & StepSnapshot)
  | ({ type: 'step-waiting'; wait: StepWait | undefined } & StepSnapshot)
  | ({ type: 'step-notice'; notice: string } & StepSnapshot)
  /** The step's worker stayed unavailable; `takeover.to` runs the step from its start. */
  | ({ type: 'step-takeover'; takeover: Takeover } & StepSnapshot);

export type ExecutorEvent =
  | StepExecutorEvent
  /** Corrective steps a `self` step added (each came with its own `step-queued` first). */
  | { type: 'steps-added'; from: number; steps: Step[]; depth: number }
  /** First of a run's events: its caps, and its pool as stored (public settings, never a key). */
  | { type: 'run-started'; limits: RunLimits; pool: WorkerSpec[] }
  /** A write to the run store failed: the run goes on in memory but is not being saved. */
  | { type: 'persistence-failed'; reason: string }
  /** Writes succeed again after a failure (what was not saved has been written since). */
  | { type: 'persistence-restored' }
  | { type: 'run-done'; result: RunResult };

/** The step caps a run holds to. */
export interface RunLimits {
  /** Steps per plan (the first and each corrective one). */
  maxSteps: number;
  /** Levels of `self` recursion. */
  maxDepth: number;
  /** Steps per run, corrective ones included. */
  maxTotalSteps: number;
}

/** A step event as the executor says it, before the step's index and snapshot are attached. */
export type StepEventBody = StepExecutorEvent extends infer E
  ? E extends StepExecutorEvent
    ? Omit<E, 'index' | 'status'>
    : never
  : never;
