import { describe, expect, it } from 'vitest';
import { RunRecordSchema, StepRecordSchema } from '../../../src/records/record-schema.ts';

const step = {
  runId: 'r1',
  index: 0,
  worker: 'w1',
  task: 'Search the tracker.',
  sees: [],
  depth: 0,
  state: 'done',
  text: 'Two issues.',
  attempts: 1,
  timings: { queuedAt: 0 },
};

describe("a stored step's tool calls", () => {
  it('are kept when present, absent in older records, and dropped (not the step) when damaged', () => {
    const toolCalls = [
      { tool: 'tracker.search_issues', outcome: 'called' },
      { tool: 'tracker.delete_issue', outcome: 'declined' },
    ];
    expect(StepRecordSchema.parse({ ...step, toolCalls }).toolCalls).toEqual(toolCalls);
    expect(StepRecordSchema.parse(step).toolCalls).toBeUndefined();
    const damaged = StepRecordSchema.parse({ ...step, toolCalls: [{ tool: 'x', outcome: 'ran rm -rf' }] });
    expect(damaged.toolCalls).toBeUndefined();
    expect(damaged.text).toBe('Two issues.');
  });

  it("and a plan's grants are read back with it", () => {
    const plan = { steps: [{ worker: 'w1', task: 't', sees: [], tools: ['tracker.search_issues'] }] };
    const run = RunRecordSchema.parse({
      id: 'r1',
      question: 'q',
      mode: 'conductor',
      pool: [],
      plan,
      planComplete: true,
      includeQuestion: true,
      status: 'done',
      createdAt: 0,
      updatedAt: 1,
      totals: { promptTokens: 0, completionTokens: 0, cost: 0, steps: 1, done: 1, failed: 0, cancelled: 0 },
    });
    expect(run.plan?.steps[0]?.tools).toEqual(['tracker.search_issues']);
  });
});
