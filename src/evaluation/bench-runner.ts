import { PASSAGE_BUDGET_CHARS } from '../attachments/passages.ts';
import type { Attachment } from '../attachments/types.ts';
import { approxTokens } from '../attachments/whole-or-passages.ts';
import { DEFAULT_ANSWER_TOKENS } from '../executor/estimate.ts';
import { formatCost } from '../shared/format-cost.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { type BenchItemResult, type BenchItemSetup, runItem } from './bench-item.ts';
import type { Strategy } from './strategies.ts';
import type { Task } from './taskset.ts';

export interface BenchProgress {
  total: number;
  finished: number;
  running: number;
  spent: number;
  /** Estimated milliseconds left, from the mean time per item so far and the concurrency. */
  etaMs?: number;
  state: BenchState;
  /** Why the bench stopped early, when it did (spend cap, cancel). */
  stopReason?: string;
}

export type BenchState = 'running' | 'paused' | 'cancelled' | 'capped' | 'done';

export interface BenchOptions extends BenchItemSetup {
  tasks: readonly Task[];
  strategies: readonly Strategy[];
  /** Items (task × strategy) in flight at once (default 2). */
  concurrency?: number;
  /** US dollars: no item starts when the spend so far plus its estimated cost would pass this. */
  spendCapUsd?: number;
  /** Results already stored from an earlier (paused, reloaded) session: those items are not run again. */
  done?: readonly BenchItemResult[];
  onResult?: (result: BenchItemResult) => void | Promise<void>;
  onProgress?: (progress: BenchProgress) => void;
  now?: () => number;
}

export interface BenchController {
  pause(): void;
  resume(): void;
  cancel(): void;
  progress(): BenchProgress;
  /** Settles when the bench is done, capped or cancelled, with every result (earlier ones included). */
  finished: Promise<BenchItemResult[]>;
}

// Before an item of a strategy has finished, its cost is estimated from the answer length a run's price
// estimate assumes for a worker with no history (src/executor/estimate.ts): one assumption, not two.
const ASSUMED_OUTPUT_TOKENS = DEFAULT_ANSWER_TOKENS;

/**
 * An upper-ish estimate of one item's cost: the most this strategy has cost so far, or (before any result)
 * its steps × (question + assumed answer) priced at the pool's dearest worker.
 */
function estimateCost(
  strategy: Strategy,
  task: Task,
  pool: readonly WorkerSpec[],
  dearestSeen: number | undefined,
  document: Attachment | undefined,
): number {
  if (dearestSeen !== undefined) return dearestSeen;
  const steps =
    strategy.config.kind === 'moa'
      ? strategy.config.proposers.length * strategy.config.layers + 1
      : strategy.config.kind === 'self-consistency'
        ? strategy.config.samples
        : strategy.config.kind === 'pipeline'
          ? 3
          : strategy.config.kind === 'conductor'
            ? 5
            : 1;
  // A reading strategy's request carries the document: whole, or at most the passage budget of it.
  const documentTokens =
    strategy.config.kind !== 'reading' || !document
      ? 0
      : strategy.config.as === 'whole'
        ? approxTokens(document)
        : Math.min(approxTokens(document), Math.ceil(PASSAGE_BUDGET_CHARS / 4));
  const inputTokens = Math.ceil(task.question.length / 3) * steps * 2 + documentTokens;
  const dearest = pool.reduce(
    (max, w) => ({
      input: Math.max(max.input, w.price?.inputPerM ?? 0),
      output: Math.max(max.output, w.price?.outputPerM ?? 0),
    }),
    { input: 0, output: 0 },
  );
  return (inputTokens * dearest.input + steps * ASSUMED_OUTPUT_TOKENS * dearest.output) / 1e6;
}

/** Runs every (task, strategy) pair on the executor, scores it, and honours pause, cancel and the spend cap. */
export function runBench(options: BenchOptions): BenchController {
  const now = options.now ?? Date.now;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const results: BenchItemResult[] = [...(options.done ?? [])];
  const finishedKeys = new Set(results.map((r) => `${r.taskId}\u0000${r.strategyId}`));
  const queue = options.strategies.flatMap((strategy) =>
    options.tasks
      .filter((task) => !finishedKeys.has(`${task.id}\u0000${strategy.id}`))
      .map((task) => ({ task, strategy })),
  );
  const total = options.tasks.length * options.strategies.length;
  /** The most one item of each strategy has cost so far: all the estimate needs of its history. */
  const dearestByStrategy = new Map<string, number>();
  const recordCost = (r: BenchItemResult) =>
    dearestByStrategy.set(r.strategyId, Math.max(dearestByStrategy.get(r.strategyId) ?? 0, r.cost));
  for (const r of results) recordCost(r);
  const running = new Map<symbol, { controller: AbortController; estimate: number }>();
  /** Results handed to `onResult` whose promise has not settled yet: the bench is not over until they have. */
  let saving = 0;
  const durations: number[] = [];
  let spent = results.reduce((sum, r) => sum + r.cost, 0);
  let state: BenchState = 'running';
  let stopReason: string | undefined;
  let settle!: (value: BenchItemResult[]) => void;
  const finished = new Promise<BenchItemResult[]>((resolve) => {
    settle = resolve;
  });

  const progress = (): BenchProgress => {
    const meanMs = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : undefined;
    const left = queue.length + running.size;
    return {
      total,
      finished: results.length,
      running: running.size,
      spent,
      state,
      ...(meanMs !== undefined && left > 0 ? { etaMs: (meanMs * left) / concurrency } : {}),
      ...(stopReason ? { stopReason } : {}),
    };
  };
  const report = () => options.onProgress?.(progress());

  const finishIfIdle = () => {
    if (running.size > 0 || saving > 0) return;
    if (state === 'running' && queue.length === 0) state = 'done';
    if (state !== 'running' && state !== 'paused') {
      report();
      settle(results);
    }
  };

  const pump = () => {
    while (state === 'running' && running.size < concurrency && queue.length > 0) {
      const next = queue[0]!;
      const estimate = estimateCost(
        next.strategy,
        next.task,
        options.pool,
        dearestByStrategy.get(next.strategy.id),
        options.document,
      );
      const committed = [...running.values()].reduce((sum, r) => sum + r.estimate, 0);
      if (options.spendCapUsd !== undefined && spent + committed + estimate > options.spendCapUsd) {
        if (running.size > 0) break; // wait: finished items may cost less than estimated
        state = 'capped';
        stopReason = `Stopped before passing the $${options.spendCapUsd} spend cap: ${formatCost(spent)} spent, the next item could cost about ${formatCost(estimate)}.`;
        break;
      }
      queue.shift();
      const key = Symbol(next.task.id);
      const controller = new AbortController();
      running.set(key, { controller, estimate });
      void runItem(next.task, next.strategy, options, controller.signal, now).then(async (result) => {
        running.delete(key);
        // Paid for either way: a cancelled item's requests count against the cap too.
        spent += result.cost;
        if (state === 'cancelled' && controller.signal.aborted) {
          // Cancelled mid-item: its partial result is not a result.
          finishIfIdle();
          return;
        }
        results.push(result);
        durations.push(result.latencyMs);
        recordCost(result);
        saving++;
        try {
          await options.onResult?.(result);
        } catch (error) {
          // A failed save must not stall the bench: the result is still counted and returned.
          console.warn('Bench onResult failed:', error);
        } finally {
          saving--;
        }
        pump(); // reports, starts what may start, and finishes the bench when nothing is left
      });
    }
    report();
    finishIfIdle();
  };

  queueMicrotask(pump);
  return {
    pause() {
      if (state === 'running') state = 'paused';
      report();
    },
    resume() {
      if (state !== 'paused') return;
      state = 'running';
      pump();
    },
    cancel() {
      if (state === 'done' || state === 'capped' || state === 'cancelled') return;
      state = 'cancelled';
      stopReason = 'Cancelled.';
      for (const { controller } of running.values()) controller.abort();
      finishIfIdle();
    },
    progress,
    finished,
  };
}
