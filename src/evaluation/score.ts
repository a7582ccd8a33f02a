import { extractMathAnswer, normalizeMathAnswer } from './math-answer.ts';
import { type PythonRun, type PythonVerdict, pythonRuns, stdoutMatches } from './python-program.ts';
import type { Task } from './taskset.ts';

export interface Score {
  correct: boolean;
  /** What was compared, after extraction and normalisation, so a person can see why. */
  extracted: string;
  detail?: string;
  /** Set when the answer could not be scored here at all (`detail` says why): not a wrong answer. */
  unscored?: true;
}

/**
 * Runs a code answer against a task's tests somewhere safe (see src/sandbox/code-runner.ts). A runner that
 * cannot run the answer at all (it did not start, or was closed first) throws: that is no verdict on it.
 */
export interface CodeRunner {
  run(code: string, tests: string, timeoutMs: number): Promise<{ passed: boolean; message: string }>;
  /**
   * Runs one Python program (python-program.ts) under the sandbox's Pyodide; absent where there is none.
   * Throws when Python cannot run here at all, which is no verdict on the answer.
   */
  runPython?(run: PythonRun, timeoutMs: number): Promise<PythonVerdict>;
}

const ARTICLES = /\b(a|an|the)\b/g;

/** SQuAD-style normalisation: case, punctuation, articles and spacing do not matter. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^\p{L}\p{N}\s.'-]/gu, ' ')
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ')
    .replace(ARTICLES, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The part of a worker's answer that is the answer: the text after the last "Answer:" (or "Final answer:"),
 * else a LaTeX \boxed{…}, else the last non-empty line. Markdown emphasis is dropped.
 */
export function extractFinalAnswer(text: string): string {
  const cleaned = text.replace(/\*\*|__|`/g, '');
  const marked = [...cleaned.matchAll(/(?:final answer|answer)\s*[:=]\s*(.+)/gi)];
  const last = marked.at(-1)?.[1];
  if (last !== undefined && last.trim() !== '') return last.trim();
  const boxed = [...cleaned.matchAll(/\\boxed\{([^{}]*)\}/g)].at(-1)?.[1];
  if (boxed !== undefined) return boxed.trim();
  const lines = cleaned.split('\n').map((line) => line.trim());
  return lines.filter((line) => line !== '').at(-1) ?? '';
}

function scoreExact(task: Task, response: string): Score {
  const expected = normalizeAnswer(task.answer);
  const final = normalizeAnswer(extractFinalAnswer(response));
  const whole = normalizeAnswer(response);
  return { correct: final === expected || whole === expected, extracted: final };
}

/** The chosen letter: "Answer: (C)", "(C)", "C)", or a lone letter, among the task's valid letters. */
export function extractChoiceLetter(response: string, choiceCount: number): string | undefined {
  const valid = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, choiceCount);
  const final = extractFinalAnswer(response);
  for (const text of [final, response]) {
    const patterns = [
      /(?:answer|option|choice)\s*(?:is)?\s*[:=]?\s*\(?([A-Z])\)?(?![A-Za-z])/gi,
      /\(([A-Z])\)/g,
      /(?:^|\s)([A-Z])[).:](?=\s|$)/gm,
      /^\s*([A-Z])\s*$/gm,
    ];
    for (const pattern of patterns) {
      const letter = [...text.matchAll(pattern)]
        .map((m) => m[1]!.toUpperCase())
        .findLast((l) => valid.includes(l));
      if (letter) return letter;
    }
  }
  return undefined;
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|-?\.\d+/gi;

/** The last number in the final answer (else in the whole response); thousands separators allowed. */
export function extractNumber(response: string): number | undefined {
  for (const text of [extractFinalAnswer(response), response]) {
    const match = [...text.matchAll(NUMBER)].at(-1)?.[0];
    if (match !== undefined) {
      const value = Number(match.replace(/,/g, ''));
      if (Number.isFinite(value)) return value;
    }
  }
  return undefined;
}

/**
 * The Python of an answer: the last ```python (or unlabelled) block, else the whole text. Only blank lines
 * are trimmed at the start: a completion model's function body starts indented, and Python needs that.
 */
export function extractPython(response: string): string {
  const blocks = [...response.matchAll(/```(?:python|py|python3)?[^\n]*\n([\s\S]*?)```/g)];
  return (blocks.at(-1)?.[1] ?? response).replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
}

/** Said instead of a score where no Python runner exists: a missing runner must not look like a wrong answer. */
export const PYTHON_NOT_AVAILABLE = 'no Python runner is available here';

/** Said instead of a score where no JavaScript runner exists. */
export const NO_CODE_RUNNER = 'no code runner is available here';

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Runs a Python answer's programs one after another (a stdin/stdout or functional task has one per case);
 * the first that fails decides. Unscored, not wrong, when Python cannot run here.
 */
async function scorePython(
  task: Task,
  code: string,
  runPython: NonNullable<CodeRunner['runPython']>,
  timeoutMs: number,
): Promise<Score> {
  const runs = pythonRuns(task, code);
  for (const [i, run] of runs.entries()) {
    const label = runs.length > 1 ? `case ${i + 1} of ${runs.length}: ` : '';
    let result: PythonVerdict;
    try {
      result = await runPython(run, timeoutMs);
    } catch (error) {
      return { correct: false, extracted: code, detail: (error as Error).message, unscored: true };
    }
    if (!result.passed) return { correct: false, extracted: code, detail: `${label}${result.message}` };
    if (run.expectedStdout !== undefined && !stdoutMatches(result.stdout, run.expectedStdout))
      return {
        correct: false,
        extracted: code,
        detail: `${label}printed ${JSON.stringify(clip(result.stdout))}, expected ${JSON.stringify(clip(run.expectedStdout))}`,
      };
  }
  return {
    correct: true,
    extracted: code,
    detail: runs.length > 1 ? `all ${runs.length} cases passed` : 'all tests passed',
  };
}

/**
 * Scores the kinds whose answer is text (everything but `code` and `python`) without running anything;
 * undefined for the kinds that need a runner. Used for each step's answer as well as the final one.
 */
export function scoreText(task: Task, response: string): Score | undefined {
  switch (task.kind) {
    case 'exact':
      return scoreExact(task, response);
    case 'choice': {
      const letter = extractChoiceLetter(response, task.choices?.length ?? 4);
      return { correct: letter === task.answer.trim().toUpperCase(), extracted: letter ?? '' };
    }
    case 'numeric': {
      const value = extractNumber(response);
      const expected = Number(task.answer);
      const tolerance = task.tolerance ?? 1e-6;
      // The relative term only absorbs floating-point noise in large values.
      const correct =
        value !== undefined && Math.abs(value - expected) <= tolerance + Math.abs(expected) * 1e-9;
      return { correct, extracted: value === undefined ? '' : String(value) };
    }
    case 'regex': {
      const final = extractFinalAnswer(response);
      const pattern = new RegExp(task.answer, 'i');
      return { correct: pattern.test(final) || pattern.test(response), extracted: final };
    }
    case 'math': {
      const extracted = extractMathAnswer(response);
      return {
        correct: normalizeMathAnswer(extracted) === normalizeMathAnswer(task.answer),
        extracted,
      };
    }
    case 'code':
    case 'python':
      return undefined;
  }
}

/** The code of an answer: the last fenced block (js/javascript/ts or none), else the whole text. */
export function extractCode(response: string): string {
  const blocks = [...response.matchAll(/```(?:javascript|js|typescript|ts|mjs)?[^\n]*\n([\s\S]*?)```/g)];
  return (blocks.at(-1)?.[1] ?? response).trim();
}

export async function scoreAnswer(
  task: Task,
  response: string,
  codeRunner?: CodeRunner,
  codeTimeoutMs = 5000,
): Promise<Score> {
  const text = scoreText(task, response);
  if (text) return text;
  if (task.kind === 'python') {
    const code = extractPython(response);
    if (codeRunner?.runPython)
      return scorePython(task, code, codeRunner.runPython.bind(codeRunner), codeTimeoutMs);
    return { correct: false, extracted: code, detail: PYTHON_NOT_AVAILABLE, unscored: true };
  }
  const code = extractCode(response);
  if (!codeRunner) return { correct: false, extracted: code, detail: NO_CODE_RUNNER, unscored: true };
  let result: { passed: boolean; message: string };
  try {
    result = await codeRunner.run(code, task.tests ?? '', codeTimeoutMs);
  } catch (error) {
    return { correct: false, extracted: code, detail: (error as Error).message, unscored: true };
  }
  return { correct: result.passed, extracted: code, detail: result.message };
}
