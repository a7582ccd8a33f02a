import { resolveSees } from '../../executor/dag.ts';

export interface GraphStepInput {
  worker: string;
  sees: 'all' | readonly number[];
}

/** How the graph names a worker: the user's label; the id only when the label is unknown. */
export type WorkerNamer = (worker: string) => string;
export const byId: WorkerNamer = (worker) => worker;

/**
 * Indices a step reads: the executor's own resolveSees, minus indices no node has (a step being edited may
 * hold any number), so the graph never draws an edge the run would not have.
 */
export function dependencies(step: GraphStepInput, index: number): number[] {
  return resolveSees(step.sees, index).filter((i) => Number.isInteger(i) && i >= 0);
}

/** Each step's stage: one below the deepest step it reads. Steps of one stage can run in parallel. */
export function levelsOf(steps: readonly GraphStepInput[]): {
  levels: number[];
  edges: Array<[number, number]>;
} {
  const levels: number[] = [];
  const edges: Array<[number, number]> = [];
  steps.forEach((step, index) => {
    const deps = dependencies(step, index);
    for (const from of deps) edges.push([from, index]);
    levels.push(deps.length === 0 ? 0 : Math.max(...deps.map((d) => levels[d] ?? 0)) + 1);
  });
  return { levels, edges };
}
