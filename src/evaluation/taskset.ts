import { z } from 'zod';

/** How an answer is scored. `code`: the answer is JavaScript, scored by running the task's tests. */
export const TaskKindSchema = z.enum(['exact', 'choice', 'numeric', 'regex', 'code']);
export type TaskKind = z.infer<typeof TaskKindSchema>;

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
  })
  .superRefine((task, ctx) => {
    if (task.kind === 'choice' && !task.choices)
      ctx.addIssue({ code: 'custom', message: 'kind "choice" needs choices' });
    if (task.kind === 'choice' && !/^[A-Za-z]$/.test(task.answer.trim()))
      ctx.addIssue({ code: 'custom', message: 'kind "choice" needs a single letter as answer' });
    if (task.kind === 'code' && !task.tests)
      ctx.addIssue({ code: 'custom', message: 'kind "code" needs tests' });
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

/**
 * Parses a JSONL task set. Blank lines are skipped; each bad line is reported by its 1-based line number
 * and the good lines are still returned, so one typo does not throw away a whole file.
 */
export function parseTaskSet(text: string): TaskSetParse {
  const tasks: Task[] = [];
  const errors: TaskSetLineError[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      errors.push({ line, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    const parsed = TaskSchema.safeParse(value);
    if (!parsed.success) {
      const message = parsed.error.issues
        .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
        .join('; ');
      errors.push({ line, message });
      return;
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined) {
      errors.push({ line, message: `duplicate id "${parsed.data.id}" (first on line ${earlier})` });
      return;
    }
    seen.set(parsed.data.id, line);
    tasks.push(parsed.data);
  });
  return { tasks, errors };
}

export function serializeTaskSet(tasks: Task[]): string {
  return `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`;
}
