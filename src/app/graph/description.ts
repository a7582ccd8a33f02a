import { byId, dependencies, type GraphStepInput, levelsOf, type WorkerNamer } from './stages.ts';

/** A sentence per step for screen readers: "Step 2 (Claude Haiku) sees steps 0 and 1." */
export function describeGraph(steps: readonly GraphStepInput[], nameOf: WorkerNamer = byId): string {
  if (steps.length === 0) return 'No steps yet.';
  const { levels } = levelsOf(steps);
  const stages = Math.max(...levels) + 1;
  const parts = steps.map((step, index) => {
    const deps = dependencies(step, index);
    const sees =
      deps.length === 0
        ? 'sees no earlier step'
        : `sees step${deps.length > 1 ? 's' : ''} ${deps.join(deps.length > 2 ? ', ' : ' and ')}`;
    return `Step ${index} (${nameOf(step.worker)}) ${sees}.`;
  });
  const parallel = steps.length > stages ? ' Steps side by side in one stage can run in parallel.' : '';
  return `Workflow of ${steps.length} step${steps.length === 1 ? '' : 's'} in ${stages} stage${stages === 1 ? '' : 's'}.${parallel} ${parts.join(' ')}`;
}
