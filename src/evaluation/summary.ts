import { type BenchItemResult, isScored } from './bench-item.ts';
import { comparePaired, type Interval, type PairedComparison, quantile, wilsonInterval } from './stats.ts';
import type { Strategy } from './strategies.ts';

export interface StrategySummary {
  strategyId: string;
  /** Items run (scored or not): what tokens, cost and latency are counted over. */
  items: number;
  /** Items with a verdict: what accuracy is counted over. */
  scored: number;
  correct: number;
  /** Of the scored items; undefined when none could be scored. */
  accuracy?: number;
  /** 95% Wilson interval for the accuracy; undefined when none could be scored. */
  accuracyInterval?: Interval;
  failures: number;
  /** Items whose answer could not be scored here, by why (most first): not counted right or wrong. */
  unscored: number;
  notScoredCauses: NotScoredCause[];
  promptTokens: number;
  completionTokens: number;
  /** Mean tokens (prompt + completion) per item. */
  tokensPerItem: number;
  cost: number;
  latencyMedianMs: number;
  latencyP90Ms: number;
  tokensByWorker: Record<string, number>;
}

export interface NotScoredCause {
  cause: string;
  items: number;
}

/** Why items could not be scored, one row per distinct reason, the most frequent first. */
export function notScoredCauses(results: readonly BenchItemResult[]): NotScoredCause[] {
  const counts = new Map<string, number>();
  for (const r of results)
    if (!isScored(r)) {
      const cause = r.notScored ?? 'it could not be scored here';
      counts.set(cause, (counts.get(cause) ?? 0) + 1);
    }
  return [...counts].map(([cause, items]) => ({ cause, items })).sort((a, b) => b.items - a.items);
}

/** One row per strategy, in the order strategies first appear in the results. */
export function summarize(results: readonly BenchItemResult[]): StrategySummary[] {
  const groups = new Map<string, BenchItemResult[]>();
  for (const result of results)
    groups.set(result.strategyId, [...(groups.get(result.strategyId) ?? []), result]);
  return [...groups].map(([strategyId, items]) => {
    const tokensByWorker: Record<string, number> = {};
    for (const item of items)
      for (const [worker, tokens] of Object.entries(item.tokensByWorker))
        tokensByWorker[worker] = (tokensByWorker[worker] ?? 0) + tokens;
    const promptTokens = items.reduce((sum, r) => sum + r.promptTokens, 0);
    const completionTokens = items.reduce((sum, r) => sum + r.completionTokens, 0);
    const scored = items.filter(isScored);
    const correct = scored.filter((r) => r.correct).length;
    const latencies = items.map((r) => r.latencyMs);
    const interval = wilsonInterval(correct, scored.length);
    return {
      strategyId,
      items: items.length,
      scored: scored.length,
      correct,
      ...(scored.length > 0 ? { accuracy: correct / scored.length } : {}),
      ...(interval ? { accuracyInterval: interval } : {}),
      failures: items.filter((r) => r.status === 'failed').length,
      unscored: items.length - scored.length,
      notScoredCauses: notScoredCauses(items),
      promptTokens,
      completionTokens,
      tokensPerItem: (promptTokens + completionTokens) / items.length,
      cost: items.reduce((sum, r) => sum + r.cost, 0),
      latencyMedianMs: quantile(latencies, 0.5),
      latencyP90Ms: quantile(latencies, 0.9),
      tokensByWorker,
    };
  });
}

export interface BestSingleComparison {
  /** The single-worker strategy with the highest accuracy (the earliest on ties). */
  bestId: string;
  /** Every other strategy against it, on the items both have a verdict for. */
  against: Map<string, PairedComparison>;
}

/**
 * Each strategy against the best single worker on the same items: the gain a conductor has to beat, with a
 * paired interval and the wins/losses behind it. Undefined when the bench has no single-worker strategy
 * with a scored item.
 */
export function compareWithBestSingle(
  results: readonly BenchItemResult[],
  strategies: readonly Strategy[],
): BestSingleComparison | undefined {
  const byStrategy = new Map<string, Map<string, boolean>>();
  // Only items with a verdict: an unscored item is neither a win nor a loss.
  for (const r of results.filter(isScored)) {
    const items = byStrategy.get(r.strategyId) ?? new Map<string, boolean>();
    items.set(r.taskId, r.correct);
    byStrategy.set(r.strategyId, items);
  }
  const accuracy = (id: string) => {
    const items = [...(byStrategy.get(id)?.values() ?? [])];
    return items.length ? items.filter(Boolean).length / items.length : -1;
  };
  const singles = strategies.filter((s) => s.config.kind === 'single' && byStrategy.has(s.id));
  const best = singles.reduce<Strategy | undefined>(
    (top, s) => (top === undefined || accuracy(s.id) > accuracy(top.id) ? s : top),
    undefined,
  );
  if (!best) return undefined;
  const bestItems = byStrategy.get(best.id)!;
  const against = new Map<string, PairedComparison>();
  for (const strategy of strategies) {
    const items = byStrategy.get(strategy.id);
    if (strategy.id === best.id || !items) continue;
    const shared = [...items.keys()].filter((taskId) => bestItems.has(taskId));
    if (shared.length === 0) continue;
    against.set(
      strategy.id,
      comparePaired(
        shared.map((taskId) => items.get(taskId)!),
        shared.map((taskId) => bestItems.get(taskId)!),
      ),
    );
  }
  return { bestId: best.id, against };
}
