import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { resetForRerun } from '../../../src/executor/resume.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { RunRecord, StepRecord } from '../../../src/records/runs-db.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';

const run: RunRecord = goodRun('r1', 10, {
  question: 'q',
  pool: [],
  plan: { steps: [] },
  createdAt: 0,
  totals: { promptTokens: 3, completionTokens: 3, cost: 0.3, steps: 3, done: 3, failed: 0, cancelled: 0 },
  answer: 'a',
});

function step(index: number, sees: StepRecord['sees']): StepRecord {
  return goodStep('r1', index, {
    task: `t${index}`,
    sees,
    text: `answer ${index}`,
    usage: { promptTokens: 1, completionTokens: 1 },
    cost: 0.1,
  });
}

describe('resetForRerun (the store side of "Rerun step")', () => {
  it('queues the step and the steps that read it afresh, keeps the others, and marks the run running', async () => {
    const store = await openRunStore('rerun-reset');
    // Step 1 reads step 0; step 2 reads nothing.
    const steps = [step(0, []), step(1, [0]), step(2, [])];
    await store.putRun(run);
    for (const s of steps) await store.putStep(s);
    await resetForRerun(store, { run, steps }, 0, 50);
    const after = await store.getRun('r1');
    expect(after?.run.status).toBe('running');
    expect(after?.run.updatedAt).toBe(50);
    for (const index of [0, 1]) {
      const s = after?.steps[index];
      expect(s).toMatchObject({ state: 'queued', text: '', attempts: 0, timings: { queuedAt: 50 } });
      expect(s?.usage).toBeUndefined();
      expect(s?.cost).toBeUndefined();
    }
    expect(after?.steps[2]).toEqual(steps[2]);
    store.close();
  });

  it('resets only the step itself when nothing reads it', async () => {
    const store = await openRunStore('rerun-leaf');
    const steps = [step(0, []), step(1, [0])];
    await store.putRun(run);
    for (const s of steps) await store.putStep(s);
    await resetForRerun(store, { run, steps }, 1, 50);
    const after = await store.getRun('r1');
    expect(after?.steps[0]).toEqual(steps[0]);
    expect(after?.steps[1]?.state).toBe('queued');
    store.close();
  });
});
