import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import { type Outcome, singleStrategy } from '../../learning/outcome.ts';

/**
 * A scored bench item as an outcome: its scorer's verdict is the mark. One per bench, task and strategy,
 * so running the bench again replaces them. Items that failed to run (no answer to score) are not kept.
 */
export function benchOutcome(record: BenchRunRecord, result: BenchItemResult): Outcome | undefined {
  const task = record.tasks.find((t) => t.id === result.taskId);
  const strategy = record.strategies.find((s) => s.id === result.strategyId);
  if (!task || !strategy || result.status !== 'done') return undefined;
  // A question about the bench's own document is no guide to how other questions should be answered.
  if (strategy.config.kind === 'reading') return undefined;
  const workerIds = [...new Set(result.plan.steps.map((s) => s.worker))];
  const models = new Map(record.pool.map((w) => [w.id, w.model]));
  return {
    runId: `bench:${record.id}:${result.taskId}:${result.strategyId}`,
    question: task.question,
    strategy:
      strategy.config.kind === 'single' ? singleStrategy(strategy.config.worker) : strategy.config.kind,
    plan: result.plan,
    workerIds,
    workerModels: Object.fromEntries(
      workerIds.flatMap((id) => (models.has(id) ? [[id, models.get(id)!]] : [])),
    ),
    good: result.correct,
    source: 'bench',
    costUsd: result.cost,
    latencyMs: result.latencyMs,
    at: result.finishedAt,
  };
}
