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
  /** Mean bytes of the bench's document sent per item, over the items that sent it (reading strategies). */
  documentBytesPerItem?: number;
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
    const documentBytes = items.flatMap((r) => (r.documentBytes !== undefined ? [r.documentBytes] : []));
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
      ...(documentBytes.length > 0
        ? { documentBytesPerItem: documentBytes.reduce((a, b) => a + b, 0) / documentBytes.length }
        : {}),
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
  const byStrategy = verdictsByStrategy(results);
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
    const paired = pairedOn(items, bestItems);
    if (paired) against.set(strategy.id, paired);
  }
  return { bestId: best.id, against };
}

/** Each strategy's verdicts by task, items with a verdict only: an unscored item is neither a win nor a loss. */
function verdictsByStrategy(results: readonly BenchItemResult[]): Map<string, Map<string, boolean>> {
  const byStrategy = new Map<string, Map<string, boolean>>();
  for (const r of results.filter(isScored)) {
    const items = byStrategy.get(r.strategyId) ?? new Map<string, boolean>();
    items.set(r.taskId, r.correct);
    byStrategy.set(r.strategyId, items);
  }
  return byStrategy;
}

/** `items` against `base` on the tasks both have a verdict for; undefined when they share none. */
function pairedOn(
  items: ReadonlyMap<string, boolean>,
  base: ReadonlyMap<string, boolean>,
): PairedComparison | undefined {
  const shared = [...items.keys()].filter((taskId) => base.has(taskId));
  if (shared.length === 0) return undefined;
  return comparePaired(
    shared.map((taskId) => items.get(taskId)!),
    shared.map((taskId) => base.get(taskId)!),
  );
}

/**
 * Each reading strategy that sent passages against the same worker sent the whole document, on the same
 * items: what local reading cost (or gained) in accuracy. Keyed by the passages strategy's id.
 */
export function compareReadingPairs(
  results: readonly BenchItemResult[],
  strategies: readonly Strategy[],
): Map<string, PairedComparison> {
  const byStrategy = verdictsByStrategy(results);
  const pairs = new Map<string, PairedComparison>();
  for (const passages of strategies) {
    if (passages.config.kind !== 'reading' || passages.config.as !== 'passages') continue;
    const { worker } = passages.config;
    const whole = strategies.find(
      (s) => s.config.kind === 'reading' && s.config.as === 'whole' && s.config.worker === worker,
    );
    const items = byStrategy.get(passages.id);
    const base = whole && byStrategy.get(whole.id);
    const paired = items && base && pairedOn(items, base);
    if (paired) pairs.set(passages.id, paired);
  }
  return pairs;
}
