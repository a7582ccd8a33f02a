import { describe, expect, it } from 'vitest';
import type { BenchItemResult } from '../../../../src/evaluation/bench-runner.ts';
import type { Task } from '../../../../src/evaluation/taskset.ts';
import { expectedText, missedItems } from '../../../../src/ui/bench/missed-items.ts';

const tasks: Task[] = [
  { id: 'a1', kind: 'numeric', question: 'What is 6*7?', answer: '42' },
  { id: 'f1', kind: 'exact', question: 'Capital of Italy?', answer: 'Rome' },
  { id: 'c1', kind: 'code', question: 'Write add.', answer: '', tests: 'assert(add(1, 2) === 3)' },
];

function result(taskId: string, strategyId: string, patch: Partial<BenchItemResult>): BenchItemResult {
  return {
    taskId,
    strategyId,
    status: 'done',
    correct: true,
    parsed: true,
    promptTokens: 1,
    completionTokens: 1,
    tokensByWorker: {},
    cost: 0,
    latencyMs: 1,
    plan: { steps: [] },
    steps: [],
    finishedAt: 0,
    ...patch,
  };
}

describe('failed and wrong bench items', () => {
  it('lists failed and wrong items with why and the expected value, in strategy then task order', () => {
    const results = [
      result('f1', 'single:b', { correct: false, answer: 'Answer: Paris', extracted: 'Paris' }),
      result('a1', 'single:a', {
        status: 'failed',
        correct: false,
        error: 'The provider rejected the key (401).',
      }),
      result('f1', 'single:a', {}),
      result('a1', 'single:b', { correct: false, parsed: false }),
      result('c1', 'single:a', { correct: false, answer: 'function add() {}' }),
    ];
    const missed = missedItems(results, tasks, ['single:a', 'single:b']);
    expect(missed.map((m) => [m.result.strategyId, m.result.taskId, m.reason, m.expected])).toEqual([
      ['single:a', 'a1', 'failed', '42'],
      ['single:a', 'c1', 'wrong answer', 'code that passes the task’s tests'],
      ['single:b', 'a1', 'plan did not parse', '42'],
      ['single:b', 'f1', 'wrong answer', 'Rome'],
    ]);
    expect(missed[0]!.result.error).toContain('401');
  });

  it('says what the scorer accepts, and when the task is gone', () => {
    expect(expectedText({ id: 'n', kind: 'numeric', question: 'q', answer: '3.14', tolerance: 0.01 })).toBe(
      '3.14 (± 0.01)',
    );
    expect(expectedText(undefined)).toMatch(/unknown/);
    expect(expectedText({ id: 'm', kind: 'choice', question: 'q', choices: ['x', 'y'], answer: 'B' })).toBe(
      'B) y',
    );
    expect(
      expectedText({
        id: 'p',
        kind: 'python',
        question: 'q',
        answer: '',
        python: { style: 'asserts', tests: 'assert f() == 1' },
      }),
    ).toBe('Python that passes the task’s tests');
  });
});
