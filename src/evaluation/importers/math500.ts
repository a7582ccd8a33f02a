import { z } from 'zod';
import { lastBoxed } from '../math-answer.ts';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const MathRecord = z.object({
  problem: z.string().min(1, 'must not be empty'),
  answer: z.string().optional(),
  solution: z.string().optional(),
  unique_id: z.string().min(1).optional(),
});

/** MATH-500 (and MATH's own records, whose answer is the solution's last `\boxed{}`). */
export const math500: TaskSetImporter = {
  id: 'math500',
  label: 'MATH-500',
  source: { url: 'https://huggingface.co/datasets/HuggingFaceH4/MATH-500', file: 'test.jsonl' },
  matchesName: (name) => /math[-_ ]?500|\bmath\b/i.test(name),
  matchesRecord: (record) =>
    hasKeys(record, 'problem') && (hasKeys(record, 'answer') || hasKeys(record, 'solution')),
  parse: (text) =>
    collectTasks(jsonLines(text), (value, line): Task | { error: string } => {
      const record = checkRecord(MathRecord, value);
      if (failed(record)) return record;
      const answer = record.answer?.trim() || (record.solution ? lastBoxed(record.solution) : undefined);
      if (!answer) return { error: 'answer is missing (and the solution has no \\boxed{} answer)' };
      return {
        id: record.unique_id ?? `math/${line}`,
        kind: 'math',
        question: `${record.problem}\n\nPut your final answer in \\boxed{}.`,
        answer,
      };
    }),
};
