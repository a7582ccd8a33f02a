/**
 * What Baton learns from, on the device only: one outcome per finished run the user marked, or
 * per bench item its scorer scored. Never sent anywhere: no request body may contain it.
 */
import type { Plan } from '../shared/plan/index.ts';

/** How a question was answered: the conductor's plan, the router's pick, one worker directly, or another. */
export type StrategyId = 'conductor' | 'router' | `single:${string}` | (string & {});

const SINGLE = 'single:';

/** The strategy of a direct call to one worker: the question goes to it alone, and the planner does not run. */
export const singleStrategy = (workerId: string): `single:${string}` => `${SINGLE}${workerId}`;

/** The worker a direct-call strategy sends the question to; undefined for a strategy that plans. */
export function singleWorkerOf(strategy: StrategyId): string | undefined {
  return strategy.startsWith(SINGLE) ? strategy.slice(SINGLE.length) : undefined;
}

export interface Outcome {
  /** The run (or bench item run) it is about; one outcome per run, the latest mark wins. */
  runId: string;
  question: string;
  strategy: StrategyId;
  /** The workflow that ran (absent for a direct call to one worker). */
  plan?: Plan;
  /** Worker ids the run used, in the pool of that day. */
  workerIds: string[];
  /**
   * Each worker's model that day, by id: workflow memory offers a past plan only while every worker of it is
   * still in the pool on the same model (an id reused for another model is another worker).
   */
  workerModels?: Record<string, string>;
  /** The user's mark (good/bad), or the bench scorer's verdict. */
  good: boolean;
  source: 'user' | 'bench';
  /** US dollars the run spent (estimated where the provider sent no usage). */
  costUsd: number;
  latencyMs: number;
  /** Epoch ms of the mark. */
  at: number;
}

/** The outcome store (IndexedDB, `src/records/outcome-store.ts`): the one place outcomes are kept. */
export interface OutcomeStore {
  /** Adds or replaces the outcome of `outcome.runId`. */
  put(outcome: Outcome): Promise<void>;
  get(runId: string): Promise<Outcome | undefined>;
  /** Every outcome, oldest first. */
  list(): Promise<Outcome[]>;
  remove(runId: string): Promise<void>;
  /** Removes every outcome (the user's "reset what Baton learned"). */
  clear(): Promise<void>;
  /** Listeners are told after every change, and what it was: each can apply it rather than read everything again. */
  subscribe(listener: (change: OutcomeChange) => void): () => void;
}

/** One change of the outcome store: an outcome added or replaced, one removed, or all of them. */
export type OutcomeChange =
  | { kind: 'put'; outcome: Outcome }
  | { kind: 'remove'; runId: string }
  | { kind: 'clear' };
