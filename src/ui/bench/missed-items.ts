/** Which bench items went wrong and why, for the results' detail list. Pure, so it is unit-tested. */

import type { BenchItemResult } from '../../evaluation/bench-runner.ts';
import type { Task } from '../../evaluation/taskset.ts';

export interface MissedItem {
  result: BenchItemResult;
  task?: Task;
  /** Why it counts against the strategy, in a few words. */
  reason: string;
  /** What a right answer is, as the scorer checks it. */
  expected: string;
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

function reasonOf(result: BenchItemResult): string {
  if (result.status === 'failed') return 'failed';
  if (!result.parsed) return 'plan did not parse';
  return 'wrong answer';
}

/** Failed and wrong items, in strategy order, then task order. */
export function missedItems(
  results: readonly BenchItemResult[],
  tasks: readonly Task[],
  strategyOrder: readonly string[],
): MissedItem[] {
  const taskAt = new Map(tasks.map((t, i) => [t.id, i]));
  const rank = (r: BenchItemResult) => [
    strategyOrder.indexOf(r.strategyId),
    taskAt.get(r.taskId) ?? Number.MAX_SAFE_INTEGER,
  ];
  return results
    .filter((r) => r.status === 'failed' || !r.correct)
    .sort((a, b) => {
      const [sa, ta] = rank(a);
      const [sb, tb] = rank(b);
      return sa! - sb! || ta! - tb!;
    })
    .map((result) => {
      const task = tasks.find((t) => t.id === result.taskId);
      return { result, ...(task ? { task } : {}), reason: reasonOf(result), expected: expectedText(task) };
    });
}
