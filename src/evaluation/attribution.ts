import type { BenchItemResult } from './bench-runner.ts';
import { scoreText } from './score.ts';
import type { Task } from './taskset.ts';

/**
 * Why a wrong item was wrong. `planner`: the conductor's plan did not parse. `synthesis`: some step had the
 * right answer and a later step (or the vote) lost it. `workers`: no step had it (the workers, or the routing
 * that chose them). `failed`: the run broke before any step answered. `unscored`: the steps could not be
 * scored here (Python, for now), so nothing can be said.
 */
export type WrongCause = 'planner' | 'synthesis' | 'workers' | 'failed' | 'unscored';

export const WRONG_CAUSES: readonly WrongCause[] = ['planner', 'synthesis', 'workers', 'failed', 'unscored'];

/** Whether one step's answer was right: as scored by the bench, else scored now for text kinds. */
export function stepCorrect(
  task: Task | undefined,
  step: BenchItemResult['steps'][number],
): boolean | undefined {
  if (step.correct !== undefined) return step.correct;
  if (step.answer === undefined || !task) return undefined;
  return scoreText(task, step.answer)?.correct;
}

/** The cause of one wrong item; undefined for a right one. */
export function causeOf(result: BenchItemResult, task: Task | undefined): WrongCause | undefined {
  if (result.correct) return undefined;
  const answered = result.steps.filter((s) => s.answer !== undefined);
  if (answered.length === 0) return result.parsed ? 'failed' : result.steps.length ? 'planner' : 'failed';
  if (!result.parsed) return 'planner';
  const verdicts = answered.map((s) => stepCorrect(task, s));
  if (verdicts.some((v) => v === true)) return 'synthesis';
  if (verdicts.some((v) => v === undefined)) return 'unscored';
  return 'workers';
}

export interface StrategyAttribution {
  strategyId: string;
  wrong: number;
  causes: Record<WrongCause, number>;
}

export interface WorkerAttribution {
  workerId: string;
  /** Step answers that could be scored. */
  answers: number;
  right: number;
}

export interface Attribution {
  strategies: StrategyAttribution[];
  workers: WorkerAttribution[];
}

/**
 * Where a bench went wrong: per strategy, its wrong items split by cause; per worker, how many of its step
 * answers (in every strategy) were right, so a user sees which worker to drop or which step to change.
 */
export function attribute(results: readonly BenchItemResult[], tasks: readonly Task[]): Attribution {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const strategies = new Map<string, StrategyAttribution>();
  const workers = new Map<string, WorkerAttribution>();
  for (const result of results) {
    const task = taskById.get(result.taskId);
    const row =
      strategies.get(result.strategyId) ??
      ({
        strategyId: result.strategyId,
        wrong: 0,
        causes: Object.fromEntries(WRONG_CAUSES.map((c) => [c, 0])) as Record<WrongCause, number>,
      } satisfies StrategyAttribution);
    strategies.set(result.strategyId, row);
    const cause = causeOf(result, task);
    if (cause) {
      row.wrong++;
      row.causes[cause]++;
    }
    for (const step of result.steps) {
      const verdict = stepCorrect(task, step);
      if (verdict === undefined) continue;
      const worker = workers.get(step.worker) ?? { workerId: step.worker, answers: 0, right: 0 };
      worker.answers++;
      if (verdict) worker.right++;
      workers.set(step.worker, worker);
    }
  }
  return { strategies: [...strategies.values()], workers: [...workers.values()] };
}
