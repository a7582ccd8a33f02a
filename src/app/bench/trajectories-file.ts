import { exportTrajectories } from '../../evaluation/trajectories.ts';
import type { ShownBench } from './bench-core.ts';

/** The JSONL file of a shown bench's trajectories, and its name. */
export function trajectoriesFile(shown: ShownBench): { filename: string; text: string } {
  const text = exportTrajectories(shown.results, shown.run.tasks, shown.run.strategies, shown.run.pool);
  const slug = shown.run.name.replace(/[^\w-]+/g, '-').replace(/^-|-$/g, '') || 'bench';
  return { filename: `baton-trajectories-${slug}.jsonl`, text };
}
