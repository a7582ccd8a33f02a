import { type BenchItemResult, isScored } from './bench-item.ts';
import { scoreText } from './score.ts';
import type { Task } from './taskset.ts';

/**
 * Why a wrong item was wrong, the one classification the cause table and the item list both show.
 * `failed`: the run broke and gave no answer (its error says where; a stalled worker, a refused key).
 * `planner`: the conductor's plan did not parse, and the fallback plan answered wrong. `synthesis`: some
 * step had the right answer and a later step (or the vote) lost it. `workers`: no step had it (the
 * workers, or the routing that chose them). `steps-unscored`: no step's own answer could be scored, so
 * nothing more can be said. An item that could not be scored at all is not wrong and has no cause.
 */
export type WrongCause = 'failed' | 'planner' | 'synthesis' | 'workers' | 'steps-unscored';

export const WRONG_CAUSES: readonly WrongCause[] = [
  'failed',
  'planner',
  'synthesis',
  'workers',
  'steps-unscored',
];

/** Whether one step's answer was right: as scored by the bench, else scored now for text kinds. */
export function stepCorrect(
  task: Task | undefined,
  step: BenchItemResult['steps'][number],
): boolean | undefined {
  if (step.correct !== undefined) return step.correct;
  if (step.answer === undefined || !task) return undefined;
  return scoreText(task, step.answer)?.correct;
}

/** The cause of one wrong item; undefined for a right one and for one that could not be scored. */
export function causeOf(result: BenchItemResult, task: Task | undefined): WrongCause | undefined {
  if (!isScored(result) || result.correct) return undefined;
  if (result.status === 'failed' || result.answer === undefined) return 'failed';
  if (!result.parsed) return 'planner';
  const verdicts = result.steps.filter((s) => s.answer !== undefined).map((s) => stepCorrect(task, s));
  if (verdicts.some((v) => v === true)) return 'synthesis';
  if (verdicts.length === 0 || verdicts.some((v) => v === undefined)) return 'steps-unscored';
  return 'workers';
}

export interface StrategyAttribution {
  strategyId: string;
  wrong: number;
  causes: Record<WrongCause, number>;
  /** Items that could not be scored: neither wrong nor right, so in no cause. */
  unscored: number;
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
        unscored: 0,
      } satisfies StrategyAttribution);
    strategies.set(result.strategyId, row);
    if (!isScored(result)) row.unscored++;
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
