import { describe, expect, it } from 'vitest';
import type { PythonRun, PythonVerdict } from '../../../src/evaluation/python-program.ts';
import { type CodeRunner, extractPython, scoreAnswer } from '../../../src/evaluation/score.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';

// The scorer's side of Python scoring: which programs it asks for, and how it reads their verdicts. The
// runner is scripted here (the real one, Pyodide in the sandbox, is in test/browser/python-sandbox.spec.ts).

const stdio: Task = {
  id: 's1',
  kind: 'python',
  question: 'Print a + b.',
  answer: '',
  python: {
    style: 'stdio',
    cases: [
      { input: '1 2\n', output: '3\n' },
      { input: '-4 4\n', output: '0\n' },
    ],
  },
};

/** A runner that answers from a script and records what it was asked to run. */
function scripted(answer: (run: PythonRun) => PythonVerdict | Error): CodeRunner & { runs: PythonRun[] } {
  const runs: PythonRun[] = [];
  return {
    runs,
    run: async () => ({ passed: false, message: 'not JavaScript' }),
    runPython: async (run) => {
      runs.push(run);
      const verdict = answer(run);
      if (verdict instanceof Error) throw verdict;
      return verdict;
    },
  };
}

describe('Python answers', () => {
  it('keep the indentation of a completion that starts inside the function body', () => {
    expect(extractPython('```python\n\n    return a + b\n```')).toBe('    return a + b');
    expect(extractPython('\n  x = 1\n\n')).toBe('  x = 1');
  });

  it('pass a stdin/stdout task when every case prints its output, compared after trimming', async () => {
    const runner = scripted((run) => ({
      passed: true,
      message: 'all tests passed',
      stdout: run.stdin === '1 2\n' ? '3  \n\n' : '0',
    }));
    const score = await scoreAnswer(
      stdio,
      '```python\na, b = map(int, input().split())\nprint(a + b)\n```',
      runner,
    );
    expect(score).toEqual({
      correct: true,
      extracted: 'a, b = map(int, input().split())\nprint(a + b)',
      detail: 'all 2 cases passed',
    });
    expect(runner.runs.map((r) => r.stdin)).toEqual(['1 2\n', '-4 4\n']);
  });

  it('fail at the first case that prints the wrong output or raises, and say which', async () => {
    const wrongOutput = scripted(() => ({ passed: true, message: 'all tests passed', stdout: '3\n' }));
    expect(await scoreAnswer(stdio, 'print(3)', wrongOutput)).toMatchObject({
      correct: false,
      detail: 'case 2 of 2: printed "3\\n", expected "0\\n"',
    });
    const raises = scripted(() => ({ passed: false, message: 'ValueError: bad input', stdout: '' }));
    const score = await scoreAnswer(stdio, 'int("x")', raises);
    expect(score).toMatchObject({ correct: false, detail: 'case 1 of 2: ValueError: bad input' });
    expect(score.unscored).toBeUndefined();
    expect(raises.runs).toHaveLength(1);
  });

  it('are unscored, not wrong, when Python cannot run here', async () => {
    const down = scripted(() => new Error('Python did not start: out of memory'));
    expect(await scoreAnswer(stdio, 'print(3)', down)).toEqual({
      correct: false,
      extracted: 'print(3)',
      detail: 'Python did not start: out of memory',
      unscored: true,
    });
  });
});
