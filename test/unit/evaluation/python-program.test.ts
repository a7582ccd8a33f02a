import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { humanEval } from '../../../src/evaluation/importers/humaneval.ts';
import { liveCodeBench } from '../../../src/evaluation/importers/livecodebench.ts';
import { mbpp } from '../../../src/evaluation/importers/mbpp.ts';
import { type PythonRun, pythonRuns, stdoutMatches } from '../../../src/evaluation/python-program.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { fixture } from './importers/fixture.ts';

// The programs are checked on this machine's CPython too, apart from the browser's runner (Pyodide): they
// must pass a right answer and fail a wrong one on any Python. The interpreter is found once: `python3` on
// the PATH may be a version manager's shim (pyenv's is a shell script), a shell start for every program.
const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
const hasPython = found.status === 0;
const interpreter = found.stdout?.trim() || 'python3';
// CI must check the programs, so there a missing python3 fails every test below; elsewhere they are skipped,
// and the title says why.
const inCI = Boolean(process.env.CI);
const checksTitle = 'the Python programs that check an answer (run on CPython)';

function passes(runs: PythonRun[]): boolean {
  return runs.every((run) => {
    const out = spawnSync(interpreter, ['-c', run.program], {
      input: run.stdin ?? '',
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (out.status !== 0) return false;
    return run.expectedStdout === undefined || stdoutMatches(out.stdout, run.expectedStdout);
  });
}

describe.skipIf(!hasPython && !inCI)(
  hasPython || inCI ? checksTitle : `${checksTitle}: skipped, python3 is not on the PATH`,
  () => {
    beforeAll(() => {
      if (!hasPython) {
        throw new Error('python3 is not on the PATH: CI must have it to check the Python programs.');
      }
    });

    it('HumanEval: the reference passes check(entry_point), as a whole function or as a body; a broken one fails', async () => {
      const { tasks } = await humanEval.parse(fixture('humaneval.jsonl'));
      for (const task of tasks) expect(passes(pythonRuns(task, task.answer))).toBe(true);
      const add = tasks[0]!;
      expect(passes(pythonRuns(add, '    return a + b\n'))).toBe(true);
      expect(passes(pythonRuns(add, 'def add_pair(a, b):\n    return a - b\n'))).toBe(false);
    });

    it('MBPP: the reference passes the asserts; a wrong one fails', async () => {
      const { tasks } = await mbpp.parse(fixture('mbpp.jsonl'));
      for (const task of tasks) expect(passes(pythonRuns(task, task.answer))).toBe(true);
      expect(passes(pythonRuns(tasks[0]!, 'def largest_of_three(a, b, c):\n    return min(a, b, c)'))).toBe(
        false,
      );
    });

    it('LiveCodeBench: stdin programs are judged on their output, functional ones on Solution().<func>', async () => {
      const { tasks } = await liveCodeBench.parse(fixture('livecodebench.jsonl'));
      const [sum, double] = tasks as [Task, Task];
      expect(passes(pythonRuns(sum, 'a, b = map(int, input().split())\nprint(a + b)'))).toBe(true);
      expect(passes(pythonRuns(sum, 'a, b = map(int, input().split())\nprint(a * b)'))).toBe(false);
      const solution = (body: string) =>
        `class Solution:\n    def doubleEach(self, nums: List[int]) -> List[int]:\n        ${body}\n`;
      expect(passes(pythonRuns(double, solution('return [2 * n for n in nums]')))).toBe(true);
      expect(passes(pythonRuns(double, solution('return nums')))).toBe(false);
    });
  },
);

describe('output comparison', () => {
  it('trims each line and trailing blank lines, but not differences inside', () => {
    expect(stdoutMatches('3  \n\n', '3\n')).toBe(true);
    expect(stdoutMatches(' 1 2\r\n3', '1 2\n3\n')).toBe(true);
    expect(stdoutMatches('1  2', '1 2')).toBe(false);
    expect(stdoutMatches('3\n4', '3')).toBe(false);
  });

  it('has no programs for a task that is not Python', () => {
    expect(pythonRuns({ id: 'x', kind: 'exact', question: 'q', answer: 'a' }, 'print(1)')).toEqual([]);
  });
});
