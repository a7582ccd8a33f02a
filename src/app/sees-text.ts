import type { Sees } from '../shared/plan/index.ts';

/**
 * What a step sees of the steps before it, in words, as the step card and the Markdown export both say it:
 * "all" on the first step sees nothing, since nothing comes before it.
 */
export function seesText(sees: Sees, index: number): string {
  if (sees === 'all') return index === 0 ? 'sees nothing (first step)' : 'sees all earlier steps';
  if (sees.length === 0) return 'sees nothing';
  return `sees ${sees.map((i) => `step ${i}`).join(', ')}`;
}
