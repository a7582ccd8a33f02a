import { z } from 'zod';
import { collectTasks, type IoCase, jsonLines, type Task } from '../taskset.ts';
import { checkRecord, failed } from './records.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

const TestCase = z.object({
  input: z.string(),
  output: z.string(),
  testtype: z.enum(['stdin', 'functional'], { error: 'must be "stdin" or "functional"' }),
});

/** The dataset stores its test lists and metadata as JSON inside strings; both forms are accepted. */
const jsonString = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  }, schema);

const LcbRecord = z.object({
  question_id: z.union([z.string().min(1), z.number()]),
  question_title: z.string().optional(),
  question_content: z.string().min(1, 'must not be empty'),
  starter_code: z.string().optional(),
  public_test_cases: jsonString(z.array(TestCase).min(1, 'needs at least one public test')),
  metadata: jsonString(z.object({ func_name: z.string().optional() }).loose()).optional(),
});

// LiveCodeBench's own instructions for the two kinds of problem.
const STDIN_NOTE =
  'Read the inputs from stdin, solve the problem and write the answer to stdout (do not directly test on the sample inputs). Reply with the program in one ```python block.';
const FUNCTIONAL_NOTE =
  'Use the following starter code to write the solution and reply with it in one ```python block.';

/** LiveCodeBench code generation (`code_generation_lite`), scored on its public tests. */
export const liveCodeBench: TaskSetImporter = {
  id: 'livecodebench',
  label: 'LiveCodeBench (code generation)',
  source: {
    url: 'https://huggingface.co/datasets/livecodebench/code_generation_lite',
    file: 'test.jsonl (or test2.jsonl …, one release a file)',
  },
  matchesName: (name) => /livecodebench|\blcb\b|code_generation/i.test(name),
  matchesRecord: (record) => hasKeys(record, 'question_content', 'public_test_cases'),
  parse: (text) =>
    collectTasks(jsonLines(text), (value): Task | { error: string } => {
      const record = checkRecord(LcbRecord, value);
      if (failed(record)) return record;
      const types = new Set(record.public_test_cases.map((c) => c.testtype));
      if (types.size > 1) return { error: 'public_test_cases mix stdin and functional tests' };
      const cases: IoCase[] = record.public_test_cases.map(({ input, output }) => ({ input, output }));
      const id = `lcb/${record.question_id}`;
      const title = record.question_title ? `${record.question_title}\n\n` : '';
      if (types.has('stdin'))
        return {
          id,
          kind: 'python',
          question: `${title}${record.question_content}\n\n${STDIN_NOTE}`,
          answer: '',
          python: { style: 'stdio', cases },
        };
      const funcName = record.metadata?.func_name;
      if (!funcName) return { error: 'metadata.func_name is missing (functional tests need it)' };
      return {
        id,
        kind: 'python',
        question: `${title}${record.question_content}\n\n${FUNCTIONAL_NOTE}\n\n\`\`\`python\n${record.starter_code ?? ''}\n\`\`\``,
        answer: '',
        python: { style: 'functional', funcName, cases },
      };
    }),
};
