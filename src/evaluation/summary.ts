import type { BenchItemResult } from './bench-runner.ts';
import { quantile } from './stats.ts';

export interface StrategySummary {
  strategyId: string;
  items: number;
  correct: number;
  accuracy: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  /** Mean tokens (prompt + completion) per item. */
  tokensPerItem: number;
  cost: number;
  latencyMedianMs: number;
  latencyP90Ms: number;
  tokensByWorker: Record<string, number>;
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
    const correct = items.filter((r) => r.correct).length;
    const latencies = items.map((r) => r.latencyMs);
    return {
      strategyId,
      items: items.length,
      correct,
      accuracy: correct / items.length,
      failures: items.filter((r) => r.status === 'failed').length,
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
