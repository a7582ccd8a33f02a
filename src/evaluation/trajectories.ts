import type { WorkerSpec } from '../shared/worker-spec.ts';
import { type BenchItemResult, isScored } from './bench-item.ts';
import type { Strategy } from './strategies.ts';
import type { Task } from './taskset.ts';

/** One training example for a conductor, as the paper rewards it. */
export interface Trajectory {
  question: string;
  /** The pool as the conductor saw it: ids, labels, strengths, models (never keys or URLs with secrets). */
  pool: { id: string; label: string; strengths: string; model: string }[];
  mode: string;
  plan: BenchItemResult['plan'];
  steps: { worker: string; task: string; sees: 'all' | number[]; answer?: string }[];
  finalAnswer?: string;
  /** Null when the answer could not be scored here (`notScored` says why): no verdict, no reward. */
  correct: boolean | null;
  /** The paper's reward: 0 when the plan did not parse, 0.5 when valid but wrong, 1 when correct. */
  reward: 0 | 0.5 | 1 | null;
  notScored?: string;
  tokens: { prompt: number; completion: number };
  cost: number;
}

export function rewardOf(result: Pick<BenchItemResult, 'parsed' | 'correct'>): 0 | 0.5 | 1 {
  if (!result.parsed) return 0;
  return result.correct ? 1 : 0.5;
}

/** JSONL of every result, one trajectory a line. Tasks or strategies no longer known are skipped. */
export function exportTrajectories(
  results: readonly BenchItemResult[],
  tasks: readonly Task[],
  strategies: readonly Strategy[],
  pool: readonly WorkerSpec[],
): string {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const strategyById = new Map(strategies.map((s) => [s.id, s]));
  const poolView = pool.map(({ id, label, strengths, model }) => ({ id, label, strengths, model }));
  const lines: string[] = [];
  for (const result of results) {
    const task = taskById.get(result.taskId);
    const strategy = strategyById.get(result.strategyId);
    if (!task || !strategy) continue;
    const trajectory: Trajectory = {
      question: task.question,
      pool: poolView,
      mode: strategy.config.kind,
      plan: result.plan,
      steps: result.steps.map(({ worker, task, sees, answer }) => ({
        worker,
        task,
        sees,
        ...(answer !== undefined ? { answer } : {}),
      })),
      ...(result.answer !== undefined ? { finalAnswer: result.answer } : {}),
      ...(isScored(result)
        ? { correct: result.correct, reward: rewardOf(result) }
        : {
            correct: null,
            // An invalid plan earns 0 whatever its answer; a valid one has no reward without a verdict.
            reward: result.parsed ? null : 0,
            notScored: result.notScored ?? 'it could not be scored here',
          }),
      tokens: { prompt: result.promptTokens, completion: result.completionTokens },
      cost: result.cost,
    };
    lines.push(JSON.stringify(trajectory));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
