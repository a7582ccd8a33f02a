import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTaskSet } from '../../../src/evaluation/importers/index.ts';
import { publicExamples, runFixPlan } from '../../../src/evaluation/run-fix.ts';
import { SAMPLE_TASKS } from '../../../src/evaluation/sample-tasks.ts';
import { planFor, strategyLabel, workersOf } from '../../../src/evaluation/strategies.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';

const fixture = (name: string) =>
  readFileSync(resolve(import.meta.dirname, '../../fixtures/benchmarks', name), 'utf8');

/** The strings of a task's hidden tests: each must be found in no step of the plan. */
function hiddenTests(task: Task): string[] {
  const check = task.python;
  const strings = [task.tests ?? ''];
  if (check?.style === 'check') strings.push(check.tests);
  if (check?.style === 'asserts' && check.setup) strings.push(check.setup);
  if (check?.style === 'stdio' || check?.style === 'functional')
    for (const c of check.cases) strings.push(c.input, c.output);
  return strings
    .flatMap((s) => s.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.length > 12 && !task.question.includes(line));
}

describe('write → run → fix', () => {
  it('is a strategy of its own: write, run, fix, its workers pinned', async () => {
    const [task] = SAMPLE_TASKS.filter((t) => t.kind === 'code');
    const { plan } = await planFor(
      { kind: 'run-fix', writer: 'w1', fixer: 'w2' },
      task!,
      undefined,
      new AbortController().signal,
    );
    expect(plan.steps.map((s) => [s.worker, s.sees, s.pin ?? false])).toEqual([
      ['w1', [], true],
      ['run', [0], false],
      ['w2', [0, 1], true],
    ]);
    expect(workersOf({ kind: 'run-fix', writer: 'w1', fixer: 'w1' })).toEqual(['w1']);
    expect(strategyLabel({ kind: 'run-fix', writer: 'w1', fixer: 'w1' }, (id) => `Label ${id}`)).toBe(
      'Write → run → fix (Label w1)',
    );
  });

  it('runs only the examples the question shows: no shipped test reaches a step', async () => {
    const sets = [
      ['humaneval.jsonl', 'humaneval.jsonl'],
      ['mbpp.jsonl', 'mbpp.jsonl'],
      ['livecodebench.jsonl', 'livecodebench.jsonl'],
    ];
    const tasks: Task[] = [...SAMPLE_TASKS.filter((t) => t.kind === 'code')];
    for (const [file, name] of sets) {
      tasks.push(...(await importTaskSet(fixture(file!), name!)).tasks);
    }
    expect(tasks.length).toBeGreaterThan(3);
    for (const task of tasks) {
      const text = JSON.stringify(runFixPlan('w1', 'w2', task));
      const hidden = hiddenTests(task);
      for (const line of hidden)
        expect(text, `${task.id}: ${line}`).not.toContain(JSON.stringify(line).slice(1, -1));
    }
  });

  it('turns a docstring’s examples and the asserts a question quotes into the run step’s test code', () => {
    const humaneval = {
      kind: 'python' as const,
      question: 'def add(a, b):\n    """\n    >>> add(2, 3)\n    5\n    >>> add(-1, 1)\n    0\n    """\n',
    };
    expect(publicExamples(humaneval)).toBe(
      'assert (add(2, 3)) == (5), "add(2, 3) should be 5"\nassert (add(-1, 1)) == (0), "add(-1, 1) should be 0"',
    );
    expect(publicExamples({ kind: 'python', question: 'Sum a list.\nassert total([1, 2]) == 3\n' })).toBe(
      'assert total([1, 2]) == 3',
    );
    expect(publicExamples({ kind: 'code', question: 'Write isPalindrome(s).' })).toBeUndefined();
    expect(runFixPlan('w1', 'w1', humaneval).steps[1]?.task).toContain(
      '```python\nassert (add(2, 3)) == (5)',
    );
  });
});
