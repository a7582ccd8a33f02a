import type { PlanRequest, PlanResponse } from '../shared/conductor-api.ts';
import { DEFAULT_MAX_STEPS } from '../shared/plan/index.ts';
import { type PlanAttempt, type PlannerItemScore, scorePlan } from './compare-planners.ts';
import { type PlannerQuestion, REFERENCE_POOL, referencePoolEntries } from './planner-set.ts';

/** The part of the conductor bridge (src/conductor/bridge.ts) the comparison needs: plan, with its stats. */
export interface StatsConductor {
  plan(request: PlanRequest): Promise<Pick<PlanResponse, 'plan' | 'repaired' | 'fallback' | 'stats'>>;
}

export type ComparisonState = 'running' | 'cancelled' | 'done' | 'failed';

export interface ComparisonProgress {
  state: ComparisonState;
  finished: number;
  total: number;
  /** The question being planned now. */
  current?: PlannerQuestion;
  /** Why the run stopped before the end (the model was unloaded, a store write failed). */
  error?: string;
}

export interface ComparisonOptions {
  conductor: StatsConductor;
  questions: readonly PlannerQuestion[];
  /** Called with each question's score as it is made; awaited (the caller stores it) before the next. */
  onScore: (score: PlannerItemScore) => Promise<void> | void;
  onProgress?: (progress: ComparisonProgress) => void;
}

export interface ComparisonRun {
  cancel(): void;
  finished: Promise<ComparisonProgress>;
}

/** Errors after which every later question would fail the same way: the run stops and says why. */
const FATAL = new Set(['ModelNotLoaded', 'NoWorkers']);

/**
 * Plans each question on the conductor alone, one at a time (the on-device model plans one thing at once),
 * against the reference pool: no worker is called, no key read, nothing leaves the device. Cancel stops
 * the plan in progress; a cancelled question has no score.
 */
export function runPlannerComparison(options: ComparisonOptions): ComparisonRun {
  const controller = new AbortController();
  const pool = referencePoolEntries();
  const total = options.questions.length;
  let finished = 0;
  const report = (progress: ComparisonProgress) => {
    options.onProgress?.(progress);
    return progress;
  };

  async function run(): Promise<ComparisonProgress> {
    for (const question of options.questions) {
      if (controller.signal.aborted) break;
      report({ state: 'running', finished, total, current: question });
      let attempt: PlanAttempt;
      try {
        const response = await options.conductor.plan({
          question: question.question,
          pool,
          mode: 'conductor',
          maxSteps: DEFAULT_MAX_STEPS,
          signal: controller.signal,
        });
        attempt = {
          kind: 'plan',
          plan: response.plan,
          stats: response.stats,
          ...(response.repaired ? { repaired: response.repaired.error } : {}),
          ...(response.fallback ? { fallback: response.fallback.reason } : {}),
        };
      } catch (error) {
        if (controller.signal.aborted) break;
        const e = error as Error;
        if (FATAL.has(e.name)) return report({ state: 'failed', finished, total, error: e.message });
        attempt = { kind: 'failed', error: e.message || e.name };
      }
      try {
        await options.onScore(scorePlan(question, attempt, REFERENCE_POOL));
      } catch (error) {
        return report({
          state: 'failed',
          finished,
          total,
          error: `Could not store a score: ${(error as Error).message}`,
        });
      }
      finished++;
    }
    return report({ state: controller.signal.aborted ? 'cancelled' : 'done', finished, total });
  }

  return { cancel: () => controller.abort(), finished: run() };
}
