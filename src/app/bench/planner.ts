import type { Planner } from '../../evaluation/strategies.ts';
import type { PlanResponse, PoolEntry } from '../../shared/conductor-api.ts';
import type { PlanMode } from '../../shared/plan/index.ts';
import { planLimitsFor } from '../../shared/plan/index.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { poolEntries } from '../pool-entries.ts';

/** The part of the conductor bridge (src/conductor/bridge.ts) a bench planner needs. */
export interface PlanningConductor {
  plan(
    request: { question: string; pool: PoolEntry[]; mode: PlanMode; maxSteps?: number },
    options?: { signal?: AbortSignal },
  ): Promise<Pick<PlanResponse, 'plan' | 'repaired' | 'fallback'>>;
}

/**
 * The on-device conductor as the bench's Planner. A plan counts as parsed only when the model's own output
 * was a valid plan: a repaired or fallback plan still runs (so the answer is scored), but its trajectory
 * gets the paper's reward 0 for an unusable plan.
 */
export function plannerFromConductor(conductor: PlanningConductor, pool: readonly WorkerSpec[]): Planner {
  const entries = poolEntries(pool);
  return {
    async plan(question, mode, signal) {
      const response = await conductor.plan(
        { question, pool: entries, mode, maxSteps: planLimitsFor(mode, {}).maxSteps },
        { signal },
      );
      const note = response.fallback
        ? `fallback: ${response.fallback.reason}`
        : response.repaired
          ? `repaired: ${response.repaired.error}`
          : undefined;
      return {
        plan: response.plan,
        parsed: !response.fallback && !response.repaired,
        ...(note ? { note } : {}),
      };
    },
  };
}
