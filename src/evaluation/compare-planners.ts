import { dependencies } from '../executor/dag.ts';
import type { GenerationStats } from '../shared/conductor-api.ts';
import { DEFAULT_MAX_STEPS, poolValidateOptions, type Step, validatePlan } from '../shared/plan/index.ts';
import { SELF_WORKER } from '../shared/worker-ids.ts';
import { type PlannerQuestion, type PlanShape, REFERENCE_POOL, type ReferenceWorker } from './planner-set.ts';

/**
 * Scores the plans a conductor model writes for the labelled planner set (src/evaluation/planner-set.ts):
 * pure functions, no model and no store, so the figures "Compare planners" shows are tested here.
 */

/** A labelled shape, or `unjoined`: steps whose answers never meet (no step builds on all the others). */
export type ClassifiedShape = PlanShape | 'unjoined';

/**
 * The shape of a plan's DAG, from its `sees`. A step that sees two steps neither of which depends on the
 * other merges parallel work (`parallel-merge`); without one, a plan whose last step depends on every
 * earlier one is a chain, each step building on or checking the one before (`check`).
 */
export function classifyShape(steps: readonly Pick<Step, 'sees'>[]): ClassifiedShape {
  if (steps.length <= 1) return 'one-step';
  const deps = dependencies(steps);
  // upstream[i]: every step i depends on, directly or through others (deps only point backwards).
  const upstream: Set<number>[] = [];
  deps.forEach((list, i) => {
    const all = new Set<number>();
    for (const d of list) {
      all.add(d);
      for (const u of upstream[d] ?? []) all.add(u);
    }
    upstream[i] = all;
  });
  const independent = (a: number, b: number) => !upstream[a]?.has(b) && !upstream[b]?.has(a);
  const merges = deps.some((list) => list.some((a, i) => list.slice(i + 1).some((b) => independent(a, b))));
  if (merges) return 'parallel-merge';
  const last = steps.length - 1;
  return upstream[last]?.size === last ? 'check' : 'unjoined';
}

/** What the conductor returned for one question: a plan (perhaps repaired or a fallback), or an error. */
export type PlanAttempt =
  | {
      kind: 'plan';
      plan: unknown;
      /** The model's first output was rejected; this plan is its repair. */
      repaired?: string;
      /** Neither output nor repair was valid; this plan is the conductor's fallback, not the model's. */
      fallback?: string;
      stats: Pick<GenerationStats, 'completionTokens' | 'ms'>;
    }
  | { kind: 'failed'; error: string; stats?: Pick<GenerationStats, 'completionTokens' | 'ms'> };

/** One question's score, as stored per model. */
export interface PlannerItemScore {
  questionId: string;
  /** The model's own first output was a valid plan for the reference pool. */
  valid: boolean;
  /** Why it was not: the repair or fallback reason, the validation message, or the error. */
  problem?: string;
  /** The shape of the plan the model ended with (a repair counts, a fallback does not). */
  shape?: ClassifiedShape;
  shapeAgrees: boolean;
  /** Share of the plan's worker steps (not `self`) on a worker of a kind the question needs; 0 with no plan. */
  workerFit: number;
  steps?: number;
  /** Tokens the model wrote for the plan (repair included); absent when the call gave no stats. */
  planTokens?: number;
  /** The conductor's wall time for the call, model loading excluded. */
  planningMs?: number;
}

/**
 * Scores one attempt against its label. Validity is the model's first output alone (as the bench counts a
 * parsed plan); shape and worker fit are scored on the plan the model ended with, so a repaired plan still
 * shows whether the model routes well, while a fallback or a failure scores as a miss.
 */
export function scorePlan(
  question: PlannerQuestion,
  attempt: PlanAttempt,
  pool: readonly ReferenceWorker[] = REFERENCE_POOL,
  maxSteps = DEFAULT_MAX_STEPS,
): PlannerItemScore {
  const figures = {
    ...(attempt.stats ? { planTokens: attempt.stats.completionTokens, planningMs: attempt.stats.ms } : {}),
  };
  const miss = (problem: string): PlannerItemScore => ({
    questionId: question.id,
    valid: false,
    problem,
    shapeAgrees: false,
    workerFit: 0,
    ...figures,
  });
  if (attempt.kind === 'failed') return miss(attempt.error);
  if (attempt.fallback !== undefined) return miss(`fallback: ${attempt.fallback}`);
  const checked = validatePlan(attempt.plan, {
    ...poolValidateOptions(pool, { maxSteps, allowSelf: true }),
    selfOnlyLast: true,
  });
  if (!checked.ok) return miss(checked.message);
  const steps = checked.plan.steps;
  const shape = classifyShape(steps);
  const workerSteps = steps.filter((s) => s.worker !== SELF_WORKER);
  const fits = workerSteps.filter((s) => {
    const kinds = pool.find((w) => w.id === s.worker)?.kinds ?? [];
    return kinds.some((k) => question.needs.includes(k));
  }).length;
  return {
    questionId: question.id,
    valid: attempt.repaired === undefined,
    ...(attempt.repaired !== undefined ? { problem: `repaired: ${attempt.repaired}` } : {}),
    shape,
    shapeAgrees: shape === question.shape,
    workerFit: workerSteps.length > 0 ? fits / workerSteps.length : 0,
    steps: steps.length,
    ...figures,
  };
}

/** The five figures per model. Rates are 0–1 over every question scored; means over calls with stats. */
export interface PlannerSummary {
  questions: number;
  validRate: number;
  shapeAgreement: number;
  workerFit: number;
  meanPlanTokens?: number;
  meanPlanningMs?: number;
}

export function summarizePlanner(items: readonly PlannerItemScore[]): PlannerSummary {
  const n = items.length;
  const share = (f: (item: PlannerItemScore) => number) =>
    n === 0 ? 0 : items.reduce((sum, item) => sum + f(item), 0) / n;
  const mean = (values: (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0) / known.length;
  };
  const tokens = mean(items.map((i) => i.planTokens));
  const ms = mean(items.map((i) => i.planningMs));
  return {
    questions: n,
    validRate: share((i) => (i.valid ? 1 : 0)),
    shapeAgreement: share((i) => (i.shapeAgrees ? 1 : 0)),
    workerFit: share((i) => i.workerFit),
    ...(tokens !== undefined ? { meanPlanTokens: tokens } : {}),
    ...(ms !== undefined ? { meanPlanningMs: ms } : {}),
  };
}
