/**
 * Workflow memory: the past questions most like a new one, by MiniSearch's BM25 ranking with
 * prefix and fuzzy matching, and the plans of those the user marked good, offered to the conductor as
 * extra few-shot examples. Text search rather than an embedding model: it runs in microseconds on a few
 * hundred questions, needs no model download, and is ~7 KB gzip. This module is imported lazily, so
 * MiniSearch stays out of the first screen's JavaScript. Pure: built over a list of outcomes.
 */
import MiniSearch from 'minisearch';
import type { Plan } from '../shared/plan/index.ts';
import { processTerm, termsOf } from '../shared/search-terms.ts';
import { SELF_WORKER } from '../shared/worker-ids.ts';
import type { Outcome } from './outcome.ts';

/** A past outcome like the question, with how alike: MiniSearch's score and the share of terms matched. */
export interface Neighbour {
  outcome: Outcome;
  score: number;
  /** Share of the question's search terms found in the past question (0–1). */
  overlap: number;
}

/** A past good workflow offered to the conductor for a new question. */
export interface MemoryExample {
  runId: string;
  question: string;
  plan: Plan;
  score: number;
}

/** Today's pool as memory sees it: each worker's id and model. */
export interface PoolWorker {
  id: string;
  model: string;
}

export interface ExampleOptions {
  /** Most steps a plan may have now: a longer past plan would teach the conductor an invalid answer. */
  maxSteps: number;
  /** Whether the conductor may use `self` now. */
  allowSelf: boolean;
  /** Default 2 (each example costs prefill tokens on the device). */
  limit?: number;
}

/**
 * At least this share of a question's terms must be found in a past one: words such as "write" or "code"
 * alone do not make two questions alike, so an unrelated question draws on nothing.
 */
export const MIN_OVERLAP = 0.5;
export const MAX_EXAMPLES = 2;

export interface WorkflowMemory {
  /** The `k` past outcomes (good or bad) most like `question`, best first; none below MIN_OVERLAP. */
  similarOutcomes(question: string, k: number): Neighbour[];
  /** The plans of the most similar good outcomes that today's pool can run, best first. */
  examplesFor(question: string, pool: readonly PoolWorker[], options: ExampleOptions): MemoryExample[];
}

/**
 * Whether every worker of `outcome`'s plan is in today's pool on the model it had: plans name workers by
 * id, so the past plan is offered unchanged (ids map to themselves) or not at all.
 */
export function runsOnPool(outcome: Outcome, pool: readonly PoolWorker[], allowSelf: boolean): boolean {
  if (!outcome.plan) return false;
  const models = new Map(pool.map((w) => [w.id, w.model]));
  return outcome.plan.steps.every((step) => {
    if (step.worker === SELF_WORKER) return allowSelf;
    const model = models.get(step.worker);
    return model !== undefined && outcome.workerModels?.[step.worker] === model;
  });
}

export function createWorkflowMemory(outcomes: readonly Outcome[]): WorkflowMemory {
  const byId = new Map(outcomes.map((o) => [o.runId, o]));
  const index = new MiniSearch<{ id: string; question: string }>({
    fields: ['question'],
    processTerm,
    searchOptions: {
      processTerm,
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 4 ? 0.2 : false),
    },
  });
  index.addAll([...byId.values()].map((o) => ({ id: o.runId, question: o.question })));

  function similarOutcomes(question: string, k: number): Neighbour[] {
    const terms = termsOf(question);
    if (terms.size === 0 || k <= 0) return [];
    const neighbours: Neighbour[] = [];
    for (const result of index.search(question)) {
      const outcome = byId.get(String(result.id));
      if (!outcome) continue;
      const overlap = new Set(result.queryTerms).size / terms.size;
      if (overlap < MIN_OVERLAP) continue;
      neighbours.push({ outcome, score: result.score, overlap });
      if (neighbours.length >= k) break;
    }
    return neighbours;
  }

  function examplesFor(
    question: string,
    pool: readonly PoolWorker[],
    options: ExampleOptions,
  ): MemoryExample[] {
    const limit = options.limit ?? MAX_EXAMPLES;
    const examples: MemoryExample[] = [];
    for (const { outcome, score } of similarOutcomes(question, 20)) {
      const plan = outcome.plan;
      if (!outcome.good || !plan || plan.steps.length === 0 || plan.steps.length > options.maxSteps) continue;
      if (!runsOnPool(outcome, pool, options.allowSelf)) continue;
      examples.push({ runId: outcome.runId, question: outcome.question, plan, score });
      if (examples.length >= limit) break;
    }
    return examples;
  }

  return { similarOutcomes, examplesFor };
}
