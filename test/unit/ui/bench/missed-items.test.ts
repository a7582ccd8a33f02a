import { describe, expect, it } from 'vitest';
import { attribute, WRONG_CAUSES } from '../../../../src/evaluation/attribution.ts';
import type { BenchItemResult } from '../../../../src/evaluation/bench-item.ts';
import type { Task } from '../../../../src/evaluation/taskset.ts';
import {
  CAUSE_LABELS,
  expectedText,
  missedItems,
  unscoredItems,
} from '../../../../src/ui/bench/missed-items.ts';

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
  it('lists failed and wrong items with their cause and the expected value, in strategy then task order', () => {
    const results = [
      result('f1', 'single:b', {
        correct: false,
        answer: 'Answer: Paris',
        extracted: 'Paris',
        steps: [{ worker: 'w', task: 't', sees: [], state: 'done', answer: 'Answer: Paris' }],
      }),
      result('a1', 'single:a', {
        status: 'failed',
        correct: false,
        error: 'The provider rejected the key (401).',
      }),
      result('f1', 'single:a', {}),
      result('a1', 'single:b', {
        correct: false,
        parsed: false,
        answer: 'Answer: 41',
        steps: [{ worker: 'w', task: 't', sees: [], state: 'done', answer: 'Answer: 41' }],
      }),
      result('c1', 'single:a', {
        correct: false,
        answer: 'function add() {}',
        steps: [{ worker: 'w', task: 't', sees: [], state: 'done', answer: 'x', correct: false }],
      }),
    ];
    const missed = missedItems(results, tasks, ['single:a', 'single:b']);
    expect(missed.map((m) => [m.result.strategyId, m.result.taskId, m.reason, m.expected])).toEqual([
      ['single:a', 'a1', CAUSE_LABELS.failed, '42'],
      ['single:a', 'c1', CAUSE_LABELS.workers, 'code that passes the task’s tests'],
      ['single:b', 'a1', CAUSE_LABELS.planner, '42'],
      ['single:b', 'f1', CAUSE_LABELS.workers, 'Rome'],
    ]);
    expect(missed[0]!.result.error).toContain('401');
  });

  it('gives each item the cause the cause table counts it under, so the two never disagree', () => {
    // A conductor bench: two plans that did not parse (their fallbacks answered wrong), and one whose
    // fallback's worker stalled, so the run broke with no answer.
    const unparsed = (taskId: string) =>
      result(taskId, 'conductor', {
        correct: false,
        parsed: false,
        answer: 'Answer: 1',
        steps: [{ worker: 'w', task: 't', sees: [], state: 'done', answer: 'Answer: 1' }],
      });
    const stalled = result('c1', 'conductor', {
      status: 'failed',
      correct: false,
      parsed: false,
      error: 'step 0: timeout',
      steps: [{ worker: 'w', task: 't', sees: [], state: 'failed' }],
    });
    const results = [unparsed('a1'), unparsed('f1'), stalled];
    const table = attribute(results, tasks).strategies[0]!;
    const listed = missedItems(results, tasks, ['conductor']);
    for (const cause of WRONG_CAUSES)
      expect(listed.filter((m) => m.cause === cause).length, cause).toBe(table.causes[cause]);
    expect(table.causes).toMatchObject({ planner: 2, failed: 1 });
  });

  it('keeps items that could not be scored apart from the wrong ones, each with why', () => {
    const results = [
      result('c1', 'single:a', {
        status: 'unscored',
        correct: false,
        answer: 'function add(a, b) { return a + b; }',
        notScored: 'the code runner did not start',
      }),
      result('a1', 'single:a', { correct: false, answer: 'Answer: 41' }),
    ];
    expect(missedItems(results, tasks, ['single:a']).map((m) => m.result.taskId)).toEqual(['a1']);
    expect(unscoredItems(results, tasks, ['single:a'])).toMatchObject([
      { result: { taskId: 'c1' }, reason: 'the code runner did not start' },
    ]);
  });

  it("shows each step's own verdict, and who took a step over", () => {
    const pipeline = result('a1', 'pipeline', {
      correct: false,
      answer: 'Answer: 40',
      steps: [
        { worker: 'plan', task: 'p', sees: [], state: 'done', answer: 'Answer: 42' },
        { worker: 'exec', task: 'e', sees: [0], state: 'done', answer: 'Answer: 40', takenOverFrom: 'down' },
        { worker: 'check', task: 'c', sees: [0, 1], state: 'failed' },
      ],
    });
    const [item] = missedItems([pipeline], tasks, ['pipeline']);
    expect(item!.cause).toBe('synthesis');
    expect(item!.steps.map((s) => [s.worker, s.verdict, s.takenOverFrom])).toEqual([
      ['plan', 'right', undefined],
      ['exec', 'wrong', 'down'],
      ['check', 'no answer', undefined],
    ]);
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
