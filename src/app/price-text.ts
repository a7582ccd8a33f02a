import { type AnswerLength, answerLengthsOf, type PlanEstimate } from '../executor/estimate.ts';
import type { RunStore } from '../records/run-store.ts';
import { formatCost } from '../shared/format-cost.ts';
import { formatTokens } from './format.ts';
import { type WorkerLabels, workerDisplayName } from './worker-names.ts';

/** How many recent runs the answer lengths are read from: enough for a stable mean, cheap to read. */
const RECENT_RUNS = 20;

/**
 * Each model's past answer lengths, from the answered steps of the most recent runs. A run that cannot be
 * read is left out (History says why); with no store at all, there is no history.
 */
export async function loadAnswerLengths(
  store: Pick<RunStore, 'listRuns' | 'getRun'>,
): Promise<Map<string, AnswerLength>> {
  const runs = await store.listRuns({ limit: RECENT_RUNS });
  const read = await Promise.all(
    runs.map(async (run) => {
      const stored = await store.getRun(run.id).catch(() => undefined);
      return stored ? { pool: stored.run.pool, steps: stored.steps } : undefined;
    }),
  );
  return answerLengthsOf(read.filter((r) => r !== undefined));
}

/** A spend limit as the user set it: dollars and cents ("$0.50"), or its significant digits below a cent. */
export function formatLimit(usd: number): string {
  return usd >= 0.01 || usd === 0 ? `$${usd.toFixed(2)}` : formatCost(usd);
}

/**
 * A cost that may leave out requests to workers with no price (`unpriced` of them): "$0.012", or
 * "$0.012 + unknown", or "unknown" when nothing of it is known. Never a $0 nobody knows.
 */
export function costText(usd: number, unpriced = 0): string {
  if (unpriced === 0) return formatCost(usd);
  return usd > 0 ? `${formatCost(usd)} + unknown` : 'unknown';
}

/** A plan's estimated cost: "≈ $0.012", "≈ $0.012 + unknown", or "price unknown" (no step has a price). */
export function estimateCostText(estimate: PlanEstimate): string {
  const unpriced = estimate.steps.filter((s) => s.cost === undefined).length;
  const text = costText(estimate.cost, unpriced);
  return text === 'unknown' ? 'price unknown' : `≈ ${text}`;
}

/** One step's estimate in a few words: "≈ 1,240 in · 400 out · $0.0021". */
export function stepPriceText(step: { inputTokens: number; outputTokens: number; cost?: number }): string {
  const cost = step.cost === undefined ? 'price unknown' : formatCost(step.cost);
  return `≈ ${formatTokens(step.inputTokens)} in · ${formatTokens(step.outputTokens)} out · ${cost}`;
}

/** The total as one line, with what it rests on: answer lengths assumed, workers without a price, self-checks. */
export function estimateText(estimate: PlanEstimate, labels: WorkerLabels = {}): string {
  const count = estimate.steps.length;
  const parts = [
    `${estimateCostText(estimate)} for ${count} step${count === 1 ? '' : 's'} (${formatTokens(estimate.inputTokens)} tokens in, ${formatTokens(estimate.outputTokens)} out)`,
  ];
  if (estimate.defaultAnswerTokens !== undefined) {
    parts.push(`≈ ${estimate.defaultAnswerTokens} tokens per answer where a worker has no history yet`);
  }
  if (estimate.unpriced.length > 0) {
    const names = estimate.unpriced.map((w) => workerDisplayName(w, labels)).join(', ');
    parts.push(
      `${names} ${estimate.unpriced.length === 1 ? 'has' : 'have'} no price: not counted, nor by the spend limit`,
    );
  }
  if (estimate.selfChecks) parts.push('corrective steps from self-checks are not included');
  return parts.join('; ');
}
