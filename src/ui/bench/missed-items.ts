/** Which bench items went wrong and why, for the results' detail list. Pure, so it is unit-tested. */

import { causeOf, stepCorrect, type WrongCause } from '../../evaluation/attribution.ts';
import { type BenchItemResult, isScored } from '../../evaluation/bench-item.ts';
import type { Task } from '../../evaluation/taskset.ts';

/** Each cause in words: the cause table's columns and the item list's reasons, so the two always agree. */
export const CAUSE_LABELS: Record<WrongCause, string> = {
  failed: 'Run failed (no answer)',
  planner: 'Invalid plan (planner)',
  synthesis: 'A step had it, a later one lost it (synthesis)',
  workers: 'No step had it (workers or routing)',
  'steps-unscored': 'Steps not scorable here',
};

/** One step of a wrong item, as the list shows it: who answered, and whether that answer alone was right. */
export interface StepVerdict {
  index: number;
  worker: string;
  /** The plan's worker, when `worker` took the step over. */
  takenOverFrom?: string;
  verdict: 'right' | 'wrong' | 'not scored' | 'no answer';
  answer?: string;
}

export interface MissedItem {
  result: BenchItemResult;
  task?: Task;
  cause: WrongCause;
  /** Why it counts against the strategy: the cause, in the cause table's words. */
  reason: string;
  /** What a right answer is, as the scorer checks it. */
  expected: string;
  steps: StepVerdict[];
}

/** An item whose answer could not be scored: no verdict, so it is apart from the wrong ones. */
export interface UnscoredItem {
  result: BenchItemResult;
  task?: Task;
  reason: string;
}

/** What the scorer accepts for `task`. */
export function expectedText(task: Task | undefined): string {
  if (!task) return 'unknown (the task is no longer in this bench)';
  switch (task.kind) {
    case 'code':
      return 'code that passes the task’s tests';
    case 'python':
      return 'Python that passes the task’s tests';
    case 'choice': {
      // The letter alone says little once the choices were shuffled (GPQA).
      const letter = task.answer.trim().toUpperCase();
      const text = task.choices?.['ABCDEFGHIJKLMNOPQRSTUVWXYZ'.indexOf(letter)];
      return text === undefined ? task.answer : `${letter}) ${text}`;
    }
    case 'numeric':
      return task.tolerance !== undefined ? `${task.answer} (± ${task.tolerance})` : task.answer;
    default:
      return task.answer;
  }
}

/** Every step of an item with its own verdict, as the attribution scores it. */
export function stepVerdicts(result: BenchItemResult, task: Task | undefined): StepVerdict[] {
  return result.steps.map((step, index) => {
    const correct = stepCorrect(task, step);
    return {
      index,
      worker: step.worker,
      ...(step.takenOverFrom !== undefined ? { takenOverFrom: step.takenOverFrom } : {}),
      verdict:
        step.answer === undefined
          ? 'no answer'
          : correct === undefined
            ? 'not scored'
            : correct
              ? 'right'
              : 'wrong',
      ...(step.answer !== undefined ? { answer: step.answer } : {}),
    };
  });
}

/** Results in strategy order, then task order. */
function inOrder(
  results: readonly BenchItemResult[],
  tasks: readonly Task[],
  strategyOrder: readonly string[],
): BenchItemResult[] {
  const taskAt = new Map(tasks.map((t, i) => [t.id, i]));
  const rank = (r: BenchItemResult) => [
    strategyOrder.indexOf(r.strategyId),
    taskAt.get(r.taskId) ?? Number.MAX_SAFE_INTEGER,
  ];
  return [...results].sort((a, b) => {
    const [sa, ta] = rank(a);
    const [sb, tb] = rank(b);
    return sa! - sb! || ta! - tb!;
  });
}

/** Failed and wrong items, in strategy order, then task order, each with its cause (src/evaluation/attribution.ts). */
export function missedItems(
  results: readonly BenchItemResult[],
  tasks: readonly Task[],
  strategyOrder: readonly string[],
): MissedItem[] {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  return inOrder(results, tasks, strategyOrder).flatMap((result) => {
    const task = taskById.get(result.taskId);
    const cause = causeOf(result, task);
    if (!cause) return [];
    return [
      {
        result,
        ...(task ? { task } : {}),
        cause,
        reason: CAUSE_LABELS[cause],
        expected: expectedText(task),
        steps: stepVerdicts(result, task),
      },
    ];
  });
}

/** Items that could not be scored, in the same order, each with why. */
export function unscoredItems(
  results: readonly BenchItemResult[],
  tasks: readonly Task[],
  strategyOrder: readonly string[],
): UnscoredItem[] {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  return inOrder(results, tasks, strategyOrder)
    .filter((result) => !isScored(result))
    .map((result) => {
      const task = taskById.get(result.taskId);
      return {
        result,
        ...(task ? { task } : {}),
        reason: result.notScored ?? 'it could not be scored here',
      };
    });
}
