import type { PythonRun } from '../sandbox/code-runner.ts';
import type { Task } from './taskset.ts';

export type { PythonRun, PythonVerdict } from '../sandbox/code-runner.ts';

/** A JavaScript string as a Python string literal: JSON's string escapes are all valid Python escapes. */
const pyString = (text: string) => JSON.stringify(text);

const escapeRegExp = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The Python programs that check one answer, one per run, in each benchmark's own convention. A runner (the
 * sandboxed Pyodide, once it exists) executes each: a run passes when the program exits without an exception
 * and, for stdin/stdout tasks, prints what was expected. Kept apart from the runner so the programs can be
 * checked on any Python.
 */
export function pythonRuns(task: Task, code: string): PythonRun[] {
  const check = task.python;
  if (task.kind !== 'python' || !check) return [];
  switch (check.style) {
    case 'check': {
      // A chat model usually repeats the whole function; a completion model writes only its body.
      const defines = new RegExp(`def\\s+${escapeRegExp(check.entryPoint)}\\s*\\(`).test(code);
      const solution = defines ? code : `${check.prompt}${code}`;
      return [{ program: `${solution}\n\n${check.tests}\n\ncheck(${check.entryPoint})\n` }];
    }
    case 'asserts':
      return [{ program: `${check.setup ? `${check.setup}\n` : ''}${code}\n\n${check.tests}\n` }];
    case 'stdio':
      return check.cases.map((c) => ({ program: code, stdin: c.input, expectedStdout: c.output }));
    case 'functional':
      // LiveCodeBench's harness also puts the typing names in scope (starter code says `List[int]`).
      return check.cases.map((c) => ({
        program: [
          'from typing import *',
          code,
          '',
          'import json as _json',
          `_args = [_json.loads(_line) for _line in ${pyString(c.input)}.split("\\n") if _line.strip()]`,
          `_got = Solution().${check.funcName}(*_args)`,
          `_want = _json.loads(${pyString(c.output)})`,
          'assert _got == _want, f"expected {_want!r}, got {_got!r}"',
          '',
        ].join('\n'),
      }));
  }
}

/** Output compared line by line after trimming each line and dropping trailing blank lines. */
export function stdoutMatches(actual: string, expected: string): boolean {
  const lines = (text: string) => {
    const out = text.split(/\r?\n/).map((line) => line.trim());
    while (out.length && out.at(-1) === '') out.pop();
    return out;
  };
  const a = lines(actual);
  const b = lines(expected);
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
