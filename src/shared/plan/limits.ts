import { labelsOf, RUN_WORKER, SELF_WORKER } from '../worker-ids.ts';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_STEPS } from './schema.ts';
import type { ValidateOptions } from './validate.ts';

/** How a question is planned: one step the conductor picks (`router`), or a full workflow (`conductor`). */
export type PlanMode = 'router' | 'conductor';

/**
 * The limits a first plan is written, decoded and checked under. The thread plans by them, and the page
 * reviews, remembers workflows and runs by the same ones, so neither rejects what the other allows.
 */
export interface PlanLimits {
  maxSteps: number;
  /** A first plan may end with the conductor's own check of the answers (`self`). */
  allowSelf: boolean;
}

/**
 * The router picks one worker: one step, and no self-check. Otherwise the user's limits hold, and a plan may
 * end with `self` while self-checks have any depth and there is room for a worker step before it (a first
 * plan's check comes last, after an answer to check).
 */
export function planLimitsFor(mode: PlanMode, prefs: { maxSteps?: number; maxDepth?: number }): PlanLimits {
  if (mode === 'router') return { maxSteps: 1, allowSelf: false };
  const maxSteps = Math.max(1, prefs.maxSteps ?? DEFAULT_MAX_STEPS);
  return { maxSteps, allowSelf: (prefs.maxDepth ?? DEFAULT_MAX_DEPTH) > 0 && maxSteps > 1 };
}

/**
 * The workers a plan in `mode` may name, `self` aside (the limits say whether it may be named). The router
 * hands the whole question to one worker, and the code runner has nothing to run then.
 */
export function plannedPool<T extends { id: string }>(mode: PlanMode, pool: readonly T[]): T[] {
  return pool.filter((w) => w.id !== SELF_WORKER && !(mode === 'router' && w.id === RUN_WORKER));
}

/** What `poolValidateOptions` fills in of validation's options, each of them given. */
export type PoolValidateOptions = Required<
  Pick<ValidateOptions, 'workerIds' | 'workerLabels' | 'maxSteps' | 'allowSelf'>
>;

/**
 * What validation is told of a pool and its limits: the workers' ids, and their labels for the messages
 * (shown to the user, and quoted to the model, which sees the labels in its prompt too). `self` is not a
 * worker of the pool: `allowSelf` says whether a plan may name it.
 */
export function poolValidateOptions(
  workers: readonly { id: string; label: string }[],
  limits: PlanLimits,
): PoolValidateOptions {
  const pool = workers.filter((w) => w.id !== SELF_WORKER);
  return {
    workerIds: pool.map((w) => w.id),
    workerLabels: labelsOf(pool),
    maxSteps: limits.maxSteps,
    allowSelf: limits.allowSelf,
  };
}
