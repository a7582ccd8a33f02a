import { describe, expect, it } from 'vitest';
import { SAMPLE_TASKS } from '../../../src/evaluation/sample-tasks.ts';
import {
  type CodeRunner,
  extractChoiceLetter,
  extractCode,
  extractFinalAnswer,
  extractNumber,
  normalizeAnswer,
  scoreAnswer,
} from '../../../src/evaluation/score.ts';
import { parseTaskSet, type Task } from '../../../src/evaluation/taskset.ts';
import { taskSetText } from '../../fixtures/task-set.ts';

const exact: Task = { id: 'e', kind: 'exact', question: 'Capital of France?', answer: 'Paris' };

describe('normalisation and extraction', () => {
  it('ignores case, articles, punctuation and spacing but keeps decimals', () => {
    expect(normalizeAnswer('  The   Eiffel Tower! ')).toBe('eiffel tower');
    expect(normalizeAnswer('3.14.')).toBe('3.14');
  });
  it('takes the text after the last "Answer:", else \\boxed{}, else the last line', () => {
    expect(extractFinalAnswer('Let me think.\nAnswer: Lyon\nFinal answer: **Paris**')).toBe('Paris');
    expect(extractFinalAnswer('so it is \\boxed{42} indeed')).toBe('42');
    expect(extractFinalAnswer('Reasoning...\n\nParis\n')).toBe('Paris');
  });
  it('finds the chosen letter in several phrasings, only among valid letters', () => {
    expect(extractChoiceLetter('The answer is (C).', 4)).toBe('C');
    expect(extractChoiceLetter('I pick B) because...', 4)).toBe('B');
    expect(extractChoiceLetter('Answer: d', 4)).toBe('D');
    expect(extractChoiceLetter('Option E is not offered', 4)).toBeUndefined();
  });
  it('reads the last number, with thousands separators and signs', () => {
    expect(extractNumber('First 3, then 5.\nAnswer: 1,234.5')).toBe(1234.5);
    expect(extractNumber('It drops to -7 degrees')).toBe(-7);
    expect(extractNumber('no digits')).toBeUndefined();
  });
  it('takes the last fenced code block', () => {
    expect(
      extractCode('Here:\n```js\nconst a = 1;\n```\nand better:\n```javascript\nconst b = 2;\n```'),
    ).toBe('const b = 2;');
    expect(extractCode('function f() {}')).toBe('function f() {}');
  });
});

describe('scoreAnswer', () => {
  it('scores exact answers after normalisation, and rejects wrong ones', async () => {
    expect((await scoreAnswer(exact, 'The capital is...\nAnswer: paris.')).correct).toBe(true);
    expect((await scoreAnswer(exact, 'Answer: Lyon')).correct).toBe(false);
  });
  it('scores multiple choice by letter', async () => {
    const task = SAMPLE_TASKS.find((t) => t.id === 'fact-4')!;
    expect((await scoreAnswer(task, '29 is prime, so (C).')).correct).toBe(true);
    expect((await scoreAnswer(task, 'Answer: A')).correct).toBe(false);
  });
  it('scores numbers within tolerance only', async () => {
    const task: Task = { id: 'n', kind: 'numeric', question: 'pi?', answer: '3.14159', tolerance: 0.001 };
    expect((await scoreAnswer(task, 'about 3.1418')).correct).toBe(true);
    expect((await scoreAnswer(task, 'about 3.15')).correct).toBe(false);
    const strict: Task = { id: 's', kind: 'numeric', question: '17*23', answer: '391' };
    expect((await scoreAnswer(strict, '391')).correct).toBe(true);
    expect((await scoreAnswer(strict, '392')).correct).toBe(false);
  });
  it('scores regular expressions, case-insensitively', async () => {
    const task = SAMPLE_TASKS.find((t) => t.id === 'logic-2')!;
    expect((await scoreAnswer(task, 'No. Blips are blops, and no blop is a blup.')).correct).toBe(true);
    expect((await scoreAnswer(task, 'Yes, sometimes.')).correct).toBe(false);
  });
  it('hands code to the runner with the extracted code and the tests', async () => {
    const calls: Array<[string, string, number]> = [];
    const runner: CodeRunner = {
      async run(code, tests, timeoutMs) {
        calls.push([code, tests, timeoutMs]);
        return { passed: code.includes('return'), message: 'ran' };
      },
    };
    const task = SAMPLE_TASKS.find((t) => t.id === 'code-1')!;
    const score = await scoreAnswer(
      task,
      '```js\nfunction isPalindrome(s) { return true; }\n```',
      runner,
      1234,
    );
    expect(score.correct).toBe(true);
    expect(calls).toEqual([['function isPalindrome(s) { return true; }', task.tests, 1234]]);
  });
  it('leaves code unscored, not wrong, when no runner can run it', async () => {
    const task = SAMPLE_TASKS.find((t) => t.id === 'code-1')!;
    expect(await scoreAnswer(task, 'function isPalindrome(s) { return true; }')).toMatchObject({
      correct: false,
      unscored: true,
      detail: 'no code runner is available here',
    });
    const closed: CodeRunner = {
      async run() {
        throw new Error('the code runner was closed before this answer finished');
      },
    };
    expect(await scoreAnswer(task, 'function isPalindrome(s) { return true; }', closed)).toMatchObject({
      unscored: true,
      detail: 'the code runner was closed before this answer finished',
    });
  });
});

describe('task sets', () => {
  it('parses JSONL and reports each bad line by number, keeping the good ones', () => {
    const text = [
      JSON.stringify(exact),
      '',
      '{"id": "x", "question": "q"',
      JSON.stringify({ id: 'c', kind: 'choice', question: 'q', answer: 'B' }),
      JSON.stringify({ id: 'k', kind: 'code', question: 'q', answer: '' }),
      JSON.stringify({ id: 'n', kind: 'numeric', question: 'q', answer: 'ten' }),
      JSON.stringify({ id: 'r', kind: 'regex', question: 'q', answer: '(' }),
      JSON.stringify({ id: 'e', kind: 'exact', question: 'again', answer: 'x' }),
      JSON.stringify({ id: 'm', kind: 'bogus', question: 'q', answer: 'x' }),
    ].join('\n');
    const { tasks, errors } = parseTaskSet(text);
    expect(tasks.map((t) => t.id)).toEqual(['e']);
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(errors[0]!.message).toMatch(/not valid JSON/);
    expect(errors[1]!.message).toMatch(/needs choices/);
    expect(errors[2]!.message).toMatch(/needs tests/);
    expect(errors[3]!.message).toMatch(/needs a number/);
    expect(errors[4]!.message).toMatch(/not a valid regular expression/);
    expect(errors[5]!.message).toBe('duplicate id "e" (first on line 1)');
    expect(errors[6]!.message).toMatch(/^kind:/);
  });
  it('round-trips the built-in sample, which is itself valid', () => {
    const { tasks, errors } = parseTaskSet(taskSetText(SAMPLE_TASKS));
    expect(errors).toEqual([]);
    expect(tasks).toEqual(SAMPLE_TASKS);
    expect(new Set(SAMPLE_TASKS.map((t) => t.kind))).toEqual(
      new Set(['exact', 'choice', 'numeric', 'regex', 'code']),
    );
  });
});
