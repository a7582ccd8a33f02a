import { describe, expect, it } from 'vitest';
import { StepRecordSchema } from '../../../src/records/record-schema.ts';

const step = {
  runId: 'r1',
  index: 0,
  worker: 'w1',
  task: 'Answer the question.',
  sees: [],
  depth: 0,
  state: 'done',
  text: 'Ninety days.',
  attempts: 1,
  timings: { queuedAt: 0 },
};
const history = { kept: 2, cut: 9, budgetTokens: 500, tokens: 410 };

describe("a stored step's earlier turns, which and why", () => {
  it('are kept when present, absent in older records, and dropped (not the history) when damaged', () => {
    const turns = [
      { turn: 2, why: 'matched', terms: ['termination'] },
      { turn: 11, why: 'newest' },
    ];
    expect(StepRecordSchema.parse({ ...step, history: { ...history, turns } }).history).toEqual({
      ...history,
      turns,
    });
    expect(StepRecordSchema.parse({ ...step, history }).history).toEqual(history);
    const damaged = StepRecordSchema.parse({
      ...step,
      history: { ...history, turns: [{ turn: 2, why: 'the planner said so' }] },
    });
    expect(damaged.history).toEqual(history);
    expect(damaged.text).toBe('Ninety days.');
  });
});
