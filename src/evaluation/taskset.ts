import { z } from 'zod';

/**
 * How an answer is scored. `code`: the answer is JavaScript, scored by running the task's tests. `python`: the
 * answer is Python, checked as `python` says (HumanEval, MBPP, LiveCodeBench). `math`: a LaTeX answer compared
 * after normalisation (MATH-500; see src/evaluation/math-answer.ts).
 */
export const TaskKindSchema = z.enum(['exact', 'choice', 'numeric', 'regex', 'code', 'python', 'math']);
export type TaskKind = z.infer<typeof TaskKindSchema>;

const IoCaseSchema = z.object({ input: z.string(), output: z.string() });
export type IoCase = z.infer<typeof IoCaseSchema>;

/** How a Python answer is checked; each style is one published benchmark's convention. */
export const PythonCheckSchema = z.discriminatedUnion('style', [
  /** HumanEval: `tests` defines `check(candidate)`, run as `check(entryPoint)`; `prompt` is the function head the model completes. */
  z.object({
    style: z.literal('check'),
    prompt: z.string(),
    tests: z.string().min(1, 'tests must not be empty'),
    entryPoint: z.string().min(1, 'entryPoint must not be empty'),
  }),
  /** MBPP: `tests` are `assert` lines run after the answer (and `setup`, when the dataset gives one). */
  z.object({
    style: z.literal('asserts'),
    tests: z.string().min(1, 'tests must not be empty'),
    setup: z.string().optional(),
  }),
  /** LiveCodeBench stdin tests: the program reads each case's input and prints its output (compared trimmed). */
  z.object({ style: z.literal('stdio'), cases: z.array(IoCaseSchema).min(1, 'needs at least one case') }),
  /** LiveCodeBench functional tests: `Solution().<funcName>(*args)`, args one JSON value a line, output JSON. */
  z.object({
    style: z.literal('functional'),
    funcName: z.string().min(1, 'funcName must not be empty'),
    cases: z.array(IoCaseSchema).min(1, 'needs at least one case'),
  }),
]);
export type PythonCheck = z.infer<typeof PythonCheckSchema>;

export const TaskSchema = z
  .object({
    id: z.string().min(1, 'id must not be empty'),
    question: z.string().min(1, 'question must not be empty'),
    answer: z.string(),
    kind: TaskKindSchema,
    choices: z.array(z.string()).min(2).optional(),
    /** For `code`: JavaScript that throws when the answer's code is wrong (see src/evaluation/score.ts). */
    tests: z.string().optional(),
    /** For `numeric`: absolute tolerance (default 1e-6). */
    tolerance: z.number().nonnegative().optional(),
    /** For `python`: how the answer is checked. */
    python: PythonCheckSchema.optional(),
  })
  .superRefine((task, ctx) => {
    if (task.kind === 'choice' && !task.choices)
      ctx.addIssue({ code: 'custom', message: 'kind "choice" needs choices' });
    if (task.kind === 'choice' && !/^[A-Za-z]$/.test(task.answer.trim()))
      ctx.addIssue({ code: 'custom', message: 'kind "choice" needs a single letter as answer' });
    if (task.kind === 'code' && !task.tests)
      ctx.addIssue({ code: 'custom', message: 'kind "code" needs tests' });
    if (task.kind === 'python' && !task.python)
      ctx.addIssue({ code: 'custom', message: 'kind "python" needs python (how its answer is checked)' });
    if (task.kind === 'math' && task.answer.trim() === '')
      ctx.addIssue({ code: 'custom', message: 'kind "math" needs an answer' });
    if (task.kind === 'numeric' && !Number.isFinite(Number(task.answer)))
      ctx.addIssue({ code: 'custom', message: 'kind "numeric" needs a number as answer' });
    if (task.kind === 'regex') {
      try {
        new RegExp(task.answer);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `answer is not a valid regular expression: ${(error as Error).message}`,
        });
      }
    }
  });
export type Task = z.infer<typeof TaskSchema>;

export interface TaskSetLineError {
  line: number;
  message: string;
}

export interface TaskSetParse {
  tasks: Task[];
  errors: TaskSetLineError[];
}

/** Zod's issues as one line a person can act on: `field: problem; field: problem`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** Turns one record into a task, or says why it cannot (the message is reported with the record's line). */
export type RecordToTask = (record: unknown, line: number) => Task | { error: string };

/**
 * Collects tasks from numbered records: a record that does not convert, or a converted task that is not a
 * valid task or repeats an earlier id, is reported by its line and the others are kept.
 */
export function collectTasks(
  records: Iterable<{ line: number; record: unknown } | { line: number; error: string }>,
  toTask: RecordToTask,
): TaskSetParse {
  const tasks: Task[] = [];
  const errors: TaskSetLineError[] = [];
  const seen = new Map<string, number>();
  for (const entry of records) {
    const { line } = entry;
    if ('error' in entry) {
      errors.push({ line, message: entry.error });
      continue;
    }
    const converted = toTask(entry.record, line);
    if ('error' in converted) {
      errors.push({ line, message: converted.error });
      continue;
    }
    const parsed = TaskSchema.safeParse(converted);
    if (!parsed.success) {
      errors.push({ line, message: describeIssues(parsed.error) });
      continue;
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined) {
      errors.push({ line, message: `duplicate id "${parsed.data.id}" (first on line ${earlier})` });
      continue;
    }
    seen.set(parsed.data.id, line);
    tasks.push(parsed.data);
  }
  return { tasks, errors };
}

/** The records of a JSONL text with their 1-based line numbers; blank lines are skipped, bad JSON is an error. */
export function* jsonLines(
  text: string,
): Generator<{ line: number; record: unknown } | { line: number; error: string }> {
  // A byte-order mark is not part of the first record.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    try {
      yield { line: i + 1, record: JSON.parse(raw) };
    } catch (error) {
      yield { line: i + 1, error: `not valid JSON (${(error as Error).message})` };
    }
  }
}

/**
 * Parses a JSONL task set in Baton's own format. Blank lines are skipped; each bad line is reported by its
 * 1-based line number and the good lines are still returned, so one typo does not throw away a whole file.
 */
export function parseTaskSet(text: string): TaskSetParse {
  return collectTasks(jsonLines(text), (record) => record as Task);
}
