import { z } from 'zod';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { csvRows } from './csv.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const LETTERS = ['A', 'B', 'C', 'D'] as const;

/** The Hugging Face export (`cais/mmlu`): four choices and the right one's index. */
const MmluJsonRecord = z.object({
  question: z.string().min(1, 'must not be empty'),
  subject: z.string().optional(),
  choices: z.array(z.string()).length(4, 'needs exactly 4 choices'),
  answer: z.union([z.number().int().min(0).max(3), z.enum(LETTERS)], {
    error: 'must be 0-3 or a letter A-D',
  }),
});

function choiceTask(id: string, question: string, choices: string[], letter: string): Task {
  return { id, kind: 'choice', question, choices, answer: letter };
}

/**
 * MMLU as Hendrycks et al. publish it: one CSV per subject (`data/test/<subject>_test.csv`), no header, each
 * row `question,A,B,C,D,answer-letter`; also the Hugging Face JSONL export with `choices` and an index.
 */
export const mmlu: TaskSetImporter = {
  id: 'mmlu',
  label: 'MMLU',
  source: {
    url: 'https://github.com/hendrycks/test',
    file: 'data/test/<subject>_test.csv from data.tar (one subject a file)',
  },
  matchesName: (name) => /mmlu|_test\.csv$|_dev\.csv$|_val\.csv$/i.test(name),
  matchesRecord: (record) =>
    (Array.isArray(record) && record.length === 6 && /^[ABCD]$/.test(String(record[5]).trim())) ||
    hasKeys(record, 'question', 'choices', 'answer'),
  async parse(text) {
    if (/^\s*\{/.test(text)) {
      return collectTasks(jsonLines(text), (value, line) => {
        const record = checkRecord(MmluJsonRecord, value);
        if (failed(record)) return record;
        const letter = typeof record.answer === 'number' ? LETTERS[record.answer]! : record.answer;
        return choiceTask(
          `mmlu/${record.subject ?? 'item'}/${line}`,
          record.question,
          record.choices,
          letter,
        );
      });
    }
    const rows = await csvRows(text);
    return collectTasks(
      rows.flatMap((entry, i) => {
        // A header row (some exports add one) is not a question.
        if (i === 0 && 'row' in entry && entry.row[0]?.trim().toLowerCase() === 'question') return [];
        return ['row' in entry ? { line: entry.line, record: entry.row } : entry];
      }),
      (value, line) => {
        const row = value as string[];
        if (row.length !== 6)
          return { error: `has ${row.length} fields; MMLU rows are question,A,B,C,D,answer` };
        const [question, a, b, c, d, answer] = row.map((field) => field.trim()) as [
          string,
          string,
          string,
          string,
          string,
          string,
        ];
        if (question === '') return { error: 'the question is empty' };
        const letter = answer.toUpperCase();
        if (!(LETTERS as readonly string[]).includes(letter))
          return { error: `the answer "${answer}" is not one of A, B, C, D` };
        return choiceTask(`mmlu/${line}`, question, [a, b, c, d], letter);
      },
    );
  },
};
