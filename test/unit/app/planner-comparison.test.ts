import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createPlannerComparison } from '../../../src/app/planner-comparison.ts';
import type { StatsConductor } from '../../../src/evaluation/compare-planners-run.ts';
import { PlannerCompareStore } from '../../../src/evaluation/compare-planners-store.ts';

/** A conductor that plans every question as one step on Quick, as the bridge answers a valid plan. */
const quick: StatsConductor = {
  plan: async () => ({
    plan: { steps: [{ worker: 'quick', task: 'Answer it.', sees: [] }] },
    stats: { promptTokens: 300, completionTokens: 20, ms: 500 },
  }),
};
/** A conductor whose every plan fell back: valid for the run, a miss for the comparison. */
const lost: StatsConductor = {
  plan: async () => ({
    plan: { steps: [{ worker: 'solver', task: 'Answer it.', sees: [] }] },
    fallback: { reason: 'invalid twice' },
    stats: { promptTokens: 300, completionTokens: 80, ms: 1500 },
  }),
};

describe('createPlannerComparison', () => {
  it('keeps a row per model, across runs and a new page, a later sample replacing the same questions', async () => {
    const name = `planner-compare-${crypto.randomUUID()}`;
    const first = createPlannerComparison({ openStore: () => PlannerCompareStore.open(name) });
    await first.open();
    expect(first.rows.value).toEqual([]);
    expect(await first.run(quick, 'Model A', 2)?.finished).toMatchObject({ state: 'done', finished: 2 });
    expect(await first.run(lost, 'Model B', 3)?.finished).toMatchObject({ state: 'done', finished: 3 });
    // A larger sample on A: its first two questions are the same, so they are measured again, not added.
    expect(await first.run(quick, 'Model A', 4)?.finished).toMatchObject({ state: 'done', finished: 4 });
    expect(first.progress.value).toEqual({
      model: 'Model A',
      progress: { state: 'done', finished: 4, total: 4 },
    });
    first.close();

    const again = createPlannerComparison({ openStore: () => PlannerCompareStore.open(name) });
    await again.open();
    const rows = again.rows.value.map((r) => ({ model: r.model, ...r.summary }));
    expect(rows).toEqual([
      expect.objectContaining({ model: 'Model A', questions: 4, validRate: 1, meanPlanTokens: 20 }),
      {
        model: 'Model B',
        questions: 3,
        validRate: 0,
        shapeAgreement: 0,
        workerFit: 0,
        meanPlanTokens: 80,
        meanPlanningMs: 1500,
      },
    ]);
    await again.forget('Model B');
    expect(again.rows.value.map((r) => r.model)).toEqual(['Model A']);
    again.close();
  });

  it('still shows the scores of a run when the store cannot open, and says why', async () => {
    const comparison = createPlannerComparison({
      openStore: () => Promise.reject(new Error('IndexedDB is disabled')),
    });
    await comparison.open();
    expect(comparison.storeError.value).toContain('IndexedDB is disabled');
    await comparison.run(quick, 'Model A', 2)?.finished;
    expect(comparison.rows.value.map((r) => [r.model, r.summary.questions])).toEqual([['Model A', 2]]);
  });

  it('runs one comparison at a time', async () => {
    const comparison = createPlannerComparison({
      openStore: () => PlannerCompareStore.open(`planner-compare-${crypto.randomUUID()}`),
    });
    await comparison.open();
    const running = comparison.run(quick, 'Model A', 2);
    expect(comparison.run(quick, 'Model A', 2)).toBeUndefined();
    await running?.finished;
    expect(comparison.run(quick, 'Model A', 1)).toBeDefined();
    comparison.close();
  });
});
