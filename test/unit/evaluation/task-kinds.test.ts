import { describe, expect, it } from 'vitest';
import { SAMPLE_TASKS } from '../../../src/evaluation/sample-tasks.ts';
import { PYTHON_NOT_AVAILABLE, scoreAnswer } from '../../../src/evaluation/score.ts';
import { majorityVote } from '../../../src/evaluation/strategies.ts';
import { parseTaskSet, type Task } from '../../../src/evaluation/taskset.ts';
import { taskSetText } from '../../fixtures/task-set.ts';

const python: Task = {
  id: 'p1',
  kind: 'python',
  question: 'Complete add.',
  answer: 'def add(a, b):\n    return a + b\n',
  python: {
    style: 'check',
    prompt: 'def add(a, b):\n',
    tests: 'def check(c):\n    assert c(1, 2) == 3\n',
    entryPoint: 'add',
  },
};

describe('the python and math kinds', () => {
  it('round-trip through a JSONL task set beside the older kinds, which still parse as before', () => {
    const math: Task = { id: 'm1', kind: 'math', question: 'Half of 1?', answer: '\\frac{1}{2}' };
    const parsed = parseTaskSet(taskSetText([...SAMPLE_TASKS, python, math]));
    expect(parsed.errors).toEqual([]);
    expect(parsed.tasks).toEqual([...SAMPLE_TASKS, python, math]);
  });

  it('say what a python or math task is missing', () => {
    const { errors } = parseTaskSet(
      [
        '{"id":"a","kind":"python","question":"q","answer":""}',
        '{"id":"b","kind":"python","question":"q","answer":"","python":{"style":"stdio","cases":[]}}',
        '{"id":"c","kind":"math","question":"q","answer":" "}',
      ].join('\n'),
    );
    expect(errors).toEqual([
      { line: 1, message: 'kind "python" needs python (how its answer is checked)' },
      { line: 2, message: 'python.cases: needs at least one case' },
      { line: 3, message: 'kind "math" needs an answer' },
    ]);
  });

  it('a python answer is reported as not scorable yet, never as a plain wrong answer', async () => {
    const score = await scoreAnswer(python, '```python\ndef add(a, b):\n    return a + b\n```');
    expect(score).toEqual({
      correct: false,
      extracted: 'def add(a, b):\n    return a + b',
      detail: PYTHON_NOT_AVAILABLE,
      unscored: true,
    });
  });

  it('self-consistency votes on math answers by their normal form', () => {
    expect(majorityVote(['\\boxed{3}', 'so \\boxed{\\dfrac{1}{2}}', 'Answer: 1/2'], { kind: 'math' })).toBe(
      'so \\boxed{\\dfrac{1}{2}}',
    );
  });
});
