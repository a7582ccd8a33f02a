import { z } from 'zod';
import { hashString, mulberry32, shuffled } from '../random.ts';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { csvRecords } from './csv.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const nonEmpty = z.string().trim().min(1, 'must not be empty');
const GpqaRecord = z.object({
  Question: nonEmpty,
  'Correct Answer': nonEmpty,
  'Incorrect Answer 1': nonEmpty,
  'Incorrect Answer 2': nonEmpty,
  'Incorrect Answer 3': nonEmpty,
  'Record ID': z.string().optional(),
});

/** The seed of the shuffle; change it to check that a score does not depend on where the right answer sits. */
export const GPQA_SHUFFLE_SEED = 0;

/**
 * The choices of one GPQA item in a fixed shuffled order: GPQA's files always list the correct answer first,
 * so its authors shuffle the four with a seeded generator. Each item is seeded from its own id, so the order
 * does not change when the file is cut or reordered.
 */
export function gpqaChoices(
  record: { id: string; correct: string; incorrect: [string, string, string] },
  seed = GPQA_SHUFFLE_SEED,
): { choices: string[]; answer: string } {
  const order = shuffled([0, 1, 2, 3], mulberry32(hashString(`${seed}:${record.id}`)));
  const all = [record.correct, ...record.incorrect];
  return { choices: order.map((i) => all[i]!), answer: 'ABCD'[order.indexOf(0)]! };
}

function toTask(value: unknown, line: number): Task | { error: string } {
  const record = checkRecord(GpqaRecord, value);
  if (failed(record)) return record;
  const id = record['Record ID']?.trim() || `gpqa/${line}`;
  const { choices, answer } = gpqaChoices({
    id,
    correct: record['Correct Answer'].trim(),
    incorrect: [
      record['Incorrect Answer 1'].trim(),
      record['Incorrect Answer 2'].trim(),
      record['Incorrect Answer 3'].trim(),
    ],
  });
  return { id, kind: 'choice', question: record.Question.trim(), choices, answer };
}

/** GPQA (Diamond, Main, Extended): the CSV its authors publish, or the same columns as JSONL. */
export const gpqa: TaskSetImporter = {
  id: 'gpqa',
  label: 'GPQA',
  source: {
    url: 'https://github.com/idavidrein/gpqa',
    file: 'dataset.zip → gpqa_diamond.csv (the password is on the page; do not repost the questions)',
  },
  matchesName: (name) => /gpqa/i.test(name),
  matchesRecord: (record) =>
    hasKeys(record, 'Question', 'Correct Answer') ||
    (Array.isArray(record) && record.includes('Correct Answer') && record.includes('Question')),
  async parse(text) {
    if (/^\s*\{/.test(text)) return collectTasks(jsonLines(text), toTask);
    return collectTasks(await csvRecords(text), toTask);
  },
};
