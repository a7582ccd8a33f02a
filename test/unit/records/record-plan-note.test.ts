import { describe, expect, it } from 'vitest';
import { RunRecordSchema } from '../../../src/records/record-schema.ts';
import type { RunRecord } from '../../../src/records/runs-db.ts';

const record: RunRecord = {
  id: 'r1',
  question: 'Who wrote Hamlet?',
  mode: 'conductor',
  pool: [],
  plan: { steps: [{ worker: 'w1', task: 'Answer the question.', sees: [] }] },
  planComplete: true,
  includeQuestion: true,
  status: 'done',
  createdAt: 0,
  updatedAt: 1,
  totals: { promptTokens: 0, completionTokens: 0, cost: 0, steps: 1, done: 1, failed: 0, cancelled: 0 },
};

describe("a run record's note on its plan", () => {
  it('is kept when present, absent in records written before it, and dropped (not the run) when damaged', () => {
    const planNote = {
      text: "The conductor's first plan was invalid; it corrected it.",
      details: ['Step 1 sees step 3, which comes after it.'],
    };
    expect(RunRecordSchema.parse({ ...record, planNote }).planNote).toEqual(planNote);
    const older = RunRecordSchema.safeParse(record);
    expect(older.success).toBe(true);
    expect(older.data?.planNote).toBeUndefined();
    const damaged = RunRecordSchema.parse({ ...record, planNote: { text: 3, details: 'x' } });
    expect(damaged.planNote).toBeUndefined();
    expect(damaged.id).toBe('r1');
  });
});
