import { describe, expect, it } from 'vitest';
import { RunRecordSchema } from '../../../src/records/record-schema.ts';
import type { RunRecord } from '../../../src/records/runs-db.ts';

const record: RunRecord = {
  id: 'r1',
  question: 'Who wrote Hamlet?',
  mode: 'router',
  pool: [],
  plan: { steps: [{ worker: 'w1', task: 'Answer the question.', sees: [] }] },
  planComplete: true,
  includeQuestion: true,
  status: 'done',
  createdAt: 0,
  updatedAt: 1,
  totals: { promptTokens: 0, completionTokens: 0, cost: 0, steps: 1, done: 1, failed: 0, cancelled: 0 },
};

describe("a run record's auto-mode choice", () => {
  it('is kept when present, absent in older records, and dropped (not the run) when damaged', () => {
    const chosenBy = {
      by: 'auto' as const,
      strategy: 'single:w1',
      reason: '9 of 10 similar questions were answered well.',
    };
    expect(RunRecordSchema.parse({ ...record, chosenBy }).chosenBy).toEqual(chosenBy);
    expect(RunRecordSchema.parse(record).chosenBy).toBeUndefined();
    const damaged = RunRecordSchema.parse({ ...record, chosenBy: { by: 'auto', strategy: 3 } });
    expect(damaged.chosenBy).toBeUndefined();
    expect(damaged.id).toBe('r1');
  });
});
