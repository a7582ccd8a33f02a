import type { Step } from '../plan/index.ts';

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
 * The conductor as the executor sees it (the on-device engine implements it). `replan` returns corrective
 * steps, appended after every existing step (their `sees` use global indices), or `[]` to accept the
 * current last answer.
 */
export interface Conductor {
  replan(input: ReplanInput): Promise<Step[]>;
}

export type StepState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/**
 * - `done`: every step is done.
 * - `partial`: the final answer exists, but some other step failed or was cancelled.
 * - `failed`: there is no final answer (the final step failed, or the plan could not be read).
 * - `cancelled`: the whole run was cancelled.
 */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled' | 'partial';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** Milliseconds since the epoch (`Date.now()`). */
export interface StepTimings {
  queuedAt?: number;
  startedAt?: number;
  firstTokenAt?: number;
  endedAt?: number;
}

/** The live (and persisted) state of one step. */
export interface StepStatus {
  index: number;
  worker: string;
  task: string;
  /** `sees` as written ("all" is kept; `dependencies` has it resolved). */
  sees: Step['sees'];
  /** 0 for the first plan's steps, d for steps added by a `self` step of depth d - 1. */
  depth: number;
  state: StepState;
  /** The answer so far while running, the whole answer when done. */
  text: string;
  usage?: Usage;
  /** US dollars, from the worker's price table; undefined when the worker has no price. */
  cost?: number;
  timings: StepTimings;
  attempts: number;
  error?: string;
}

export interface RunTotals {
  promptTokens: number;
  completionTokens: number;
  /** US dollars over the steps whose worker has a price. */
  cost: number;
  steps: number;
  done: number;
  failed: number;
  cancelled: number;
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

export type ExecutorEvent =
  | { type: 'step-queued'; index: number; step: Step; depth: number }
  | { type: 'step-started'; index: number; attempt: number }
  | { type: 'step-delta'; index: number; text: string; answer: string }
  | { type: 'step-retrying'; index: number; attempt: number; delayMs: number; reason: string }
  | { type: 'step-done'; index: number; answer: string; usage?: Usage; cost?: number }
  | { type: 'step-failed'; index: number; reason: string }
  | { type: 'step-cancelled'; index: number; reason: string }
  | { type: 'steps-added'; from: number; steps: Step[]; depth: number }
  | { type: 'run-done'; result: RunResult };
