import { z } from 'zod';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const Gsm8kRecord = z.object({
  question: z.string().min(1, 'must not be empty'),
  answer: z.string().min(1, 'must not be empty'),
});

/** The number after GSM8K's `####` marker, thousands separators removed; undefined when there is none. */
export function gsm8kFinalAnswer(solution: string): number | undefined {
  const final = /####\s*(.+?)\s*$/.exec(solution)?.[1];
  if (final === undefined) return undefined;
  const value = Number(final.replace(/,/g, '').replace(/^\$/, ''));
  return Number.isFinite(value) ? value : undefined;
}

/** GSM8K: grade-school word problems whose solution ends `#### <number>`; scored numerically. */
export const gsm8k: TaskSetImporter = {
  id: 'gsm8k',
  label: 'GSM8K',
  source: {
    url: 'https://github.com/openai/grade-school-math',
    file: 'grade_school_math/data/test.jsonl',
  },
  matchesName: (name) => /gsm[-_ ]?8k/i.test(name),
  matchesRecord: (record) =>
    hasKeys(record, 'question', 'answer') &&
    typeof (record as { answer: unknown }).answer === 'string' &&
    (record as { answer: string }).answer.includes('####'),
  parse: (text) =>
    collectTasks(jsonLines(text), (value, line): Task | { error: string } => {
      const record = checkRecord(Gsm8kRecord, value);
      if (failed(record)) return record;
      if (!record.answer.includes('####')) return { error: 'answer has no final "#### <number>" line' };
      const final = gsm8kFinalAnswer(record.answer);
      if (final === undefined) return { error: 'answer: the text after "####" is not a number' };
      // GSM8K has no ids: the line number is one, stable for a given file.
      return {
        id: `gsm8k/${line}`,
        kind: 'numeric',
        question: `${record.question}\nSolve it step by step.`,
        answer: String(final),
      };
    }),
};
