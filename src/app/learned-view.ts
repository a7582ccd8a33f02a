/** How "What Baton learned" names what it learned: strategies and question kinds in words, rewards as numbers. */

import type { Category } from '../learning/features.ts';
import { type StrategyId, singleWorkerOf } from '../learning/outcome.ts';
import { formatFixed } from './format.ts';
import { type WorkerLabels, workerDisplayName } from './worker-names.ts';

/** Strategies the bench scores besides conductor, router and one worker; its outcomes name them by kind. */
const STRATEGY_NAMES: Readonly<Record<string, string>> = {
  conductor: 'Conductor',
  router: 'Router',
  moa: 'Mixture-of-Agents',
  pipeline: 'Plan → execute → verify',
  'self-consistency': 'Self-consistency',
};

/** "Conductor", "Mixture-of-Agents", "Parrot (directly)": the user's worker label, never a bare id when known. */
export function strategyName(arm: StrategyId, labels: WorkerLabels = {}): string {
  const worker = singleWorkerOf(arm);
  if (worker !== undefined) return `${workerDisplayName(worker, labels)} (directly)`;
  return Object.hasOwn(STRATEGY_NAMES, arm) ? STRATEGY_NAMES[arm]! : arm;
}

const CATEGORY_NAMES: Readonly<Record<Category, string>> = {
  code: 'Code',
  math: 'Math',
  writing: 'Writing',
  analysis: 'Analysis',
  facts: 'Facts',
  other: 'Other',
};

export function categoryName(category: string): string {
  return Object.hasOwn(CATEGORY_NAMES, category) ? CATEGORY_NAMES[category as Category] : category;
}

/** Good answers per try, less λ × dollars per try, to two decimals ("0.55"); a mean that rounds to zero reads "0.00". */
export function meanRewardText(
  stats: { tries: number; good: number; costUsd: number },
  lambda: number,
): string {
  if (stats.tries <= 0) return '—';
  return formatFixed((stats.good - lambda * stats.costUsd) / stats.tries, 2);
}
