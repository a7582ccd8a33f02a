import type { ReplanInput, Replanner } from '../executor/types.ts';
import type { ConductorService, PoolEntry } from '../shared/conductor-api.ts';
import type { Step } from '../shared/plan/index.ts';

/** What the conductor needs besides the executor's input to write corrective steps for one run. */
export interface ReplanContext {
  pool: PoolEntry[];
  maxSteps?: number;
  maxDepth?: number;
}

/**
 * The executor's `Replanner` for one run: corrective steps for a `self` step, or [] to accept. The run's
 * context is bound here, per run, so two runs never share (or race on) one pool.
 */
export function replannerFor(service: Pick<ConductorService, 'replan'>, context: ReplanContext): Replanner {
  return {
    async replan(input: ReplanInput): Promise<Step[]> {
      const response = await service.replan({
        question: input.question,
        pool: context.pool,
        steps: [...input.steps],
        answers: input.answers.map((answer) => answer ?? null),
        depth: input.depth,
        signal: input.signal,
        ...(context.maxSteps ? { maxSteps: context.maxSteps } : {}),
        ...(context.maxDepth !== undefined ? { maxDepth: context.maxDepth } : {}),
      });
      return response.steps;
    },
  };
}
