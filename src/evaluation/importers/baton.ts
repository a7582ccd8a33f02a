import { parseTaskSet } from '../taskset.ts';
import { hasKeys, type TaskSetImporter } from './types.ts';

/** Baton's own JSONL task set (see src/evaluation/taskset.ts). */
export const batonTaskSet: TaskSetImporter = {
  id: 'baton',
  label: 'Baton task set',
  source: { url: '', file: 'one {"id","question","answer","kind"} a line' },
  matchesName: () => false,
  matchesRecord: (record) => hasKeys(record, 'id', 'question', 'answer', 'kind'),
  parse: parseTaskSet,
};
