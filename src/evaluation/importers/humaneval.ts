import { z } from 'zod';
import { collectTasks, jsonLines, type Task } from '../taskset.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const HumanEvalRecord = z.object({
  task_id: z.string().min(1, 'must not be empty'),
  prompt: z.string().min(1, 'must not be empty'),
  canonical_solution: z.string().optional(),
  test: z.string().min(1, 'must not be empty'),
  entry_point: z.string().min(1, 'must not be empty'),
});

/** HumanEval (and HumanEval+ / MultiPL-E-style Python files with the same fields). */
export const humanEval: TaskSetImporter = {
  id: 'humaneval',
  label: 'HumanEval',
  source: { url: 'https://github.com/openai/human-eval', file: 'data/HumanEval.jsonl.gz' },
  matchesName: (name) => /human[-_ ]?eval/i.test(name),
  matchesRecord: (record) => hasKeys(record, 'task_id', 'prompt', 'test', 'entry_point'),
  parse: (text) =>
    collectTasks(jsonLines(text), (value): Task | { error: string } => {
      const record = checkRecord(HumanEvalRecord, value);
      if (failed(record)) return record;
      if (!new RegExp(`def\\s+${escapeRegExp(record.entry_point)}\\s*\\(`).test(record.prompt))
        return { error: `entry_point "${record.entry_point}" is not defined in prompt` };
      if (!/def\s+check\s*\(/.test(record.test)) return { error: 'test does not define check(candidate)' };
      return {
        id: record.task_id,
        kind: 'python',
        question: `Complete this Python function. Reply with the whole function in one \`\`\`python block.\n\n\`\`\`python\n${record.prompt}\`\`\``,
        answer: record.prompt + (record.canonical_solution ?? ''),
        python: { style: 'check', prompt: record.prompt, tests: record.test, entryPoint: record.entry_point },
      };
    }),
};

function escapeRegExp(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
