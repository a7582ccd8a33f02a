import { z } from 'zod';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, isObject, type TaskSetImporter } from './types.ts';

// The original file names the description `text`; the sanitized one names it `prompt` and adds `test_imports`.
const MbppRecord = z.object({
  task_id: z.union([z.number().int(), z.string().min(1)]),
  text: z.string().min(1, 'must not be empty').optional(),
  prompt: z.string().min(1, 'must not be empty').optional(),
  code: z.string().optional(),
  test_list: z.array(z.string()).min(1, 'needs at least one assert'),
  test_setup_code: z.string().optional(),
  test_imports: z.array(z.string()).optional(),
});

/** MBPP, original (`mbpp.jsonl`) or sanitized: a description, a reference solution and `assert` lines. */
export const mbpp: TaskSetImporter = {
  id: 'mbpp',
  label: 'MBPP',
  source: {
    url: 'https://github.com/google-research/google-research/tree/master/mbpp',
    file: 'mbpp.jsonl (or sanitized-mbpp.json saved as one record a line)',
  },
  matchesName: (name) => /mbpp/i.test(name),
  matchesRecord: (record) =>
    hasKeys(record, 'task_id', 'test_list') && isObject(record) && ('text' in record || 'prompt' in record),
  parse: (text) =>
    collectTasks(jsonLines(text), (value): Task | { error: string } => {
      const record = checkRecord(MbppRecord, value);
      if (failed(record)) return record;
      const description = record.text ?? record.prompt;
      if (description === undefined) return { error: 'text (or prompt): the task description is missing' };
      const bad = record.test_list.findIndex((line) => !/^\s*assert\b/.test(line));
      if (bad >= 0) return { error: `test_list.${bad}: not an assert statement` };
      // The MBPP paper's own prompt: the description, then the tests the code must pass.
      return {
        id: `mbpp/${record.task_id}`,
        kind: 'python',
        question: `${description}\nYour code should pass these tests:\n\n${record.test_list.join('\n')}\n\nReply with the code in one \`\`\`python block.`,
        answer: record.code ?? '',
        python: {
          style: 'asserts',
          tests: [...(record.test_imports ?? []), ...record.test_list].join('\n'),
          ...(record.test_setup_code ? { setup: record.test_setup_code } : {}),
        },
      };
    }),
};
