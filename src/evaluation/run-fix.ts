import type { Plan } from '../shared/plan/index.ts';
import { RUN_WORKER } from '../shared/worker-ids.ts';
import type { Task } from './taskset.ts';

/**
 * The "write → run → fix" strategy: a worker writes the code, the code sandbox (`run`) runs it, and a worker
 * fixes it from the real output. What the run step may run is the question's own public examples and
 * nothing else: the tests a task ships (HumanEval's `check`, MBPP's setup, LiveCodeBench's cases, a code
 * task's `tests`) decide its score and never reach a worker or the run step.
 */

/** `>>> expr` followed by its expected value, as a docstring shows an example. */
const DOCTEST = /^[ \t]*>>>[ \t]?(.+)\n[ \t]*(?!>>>)(\S.*)$/gm;

/**
 * Python asserts made of the examples the question itself shows: its doctest examples, and assert lines it
 * quotes (MBPP's prompt lists its tests in the question, so a worker reads them anyway). None for other
 * kinds of tasks: a JavaScript task's checks are its hidden tests.
 */
export function publicExamples(task: Pick<Task, 'kind' | 'question'>): string | undefined {
  if (task.kind !== 'python') return undefined;
  const asserts: string[] = [];
  for (const [, expr, want] of task.question.matchAll(DOCTEST)) {
    const expression = (expr ?? '').trim();
    const expected = (want ?? '').trim();
    asserts.push(
      `assert (${expression}) == (${expected}), ${JSON.stringify(`${expression} should be ${expected}`)}`,
    );
  }
  for (const line of task.question.split('\n')) if (/^\s*assert\b/.test(line)) asserts.push(line.trim());
  return asserts.length > 0 ? [...new Set(asserts)].join('\n') : undefined;
}

const FINAL = 'Reply with the whole code in one fenced block.';

/** The plan: write (with the question's examples as asserts), run, fix from the run's output. */
export function runFixPlan(writer: string, fixer: string, task: Pick<Task, 'kind' | 'question'>): Plan {
  const examples = publicExamples(task);
  const language = task.kind === 'python' ? 'python' : 'js';
  return {
    steps: [
      { worker: writer, task: `Write the code. ${FINAL}`, sees: [], pin: true },
      {
        worker: RUN_WORKER,
        task: examples
          ? `Run the code with the question's examples:\n\n\`\`\`${language}\n${examples}\n\`\`\``
          : 'Run the code.',
        sees: [0],
      },
      {
        worker: fixer,
        task: `The code above was run; its result follows it. If it failed, fix the code; else keep it. ${FINAL}`,
        sees: [0, 1],
        pin: true,
      },
    ],
  };
}
