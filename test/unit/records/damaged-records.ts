import type { RunRecord, StepRecord } from '../../../src/records/runs-db.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';
import { writeVersion1Database } from '../../fixtures/version1-runs.ts';

// Records as they can be found in a user's IndexedDB: written by an older Baton, by an import that was not
// checked, or by hand. Each is one way a record can be wrong; good ones sit beside them.

/** Run records that must be skipped, each with the field its reason must name. */
export function badRuns(updatedAt: number): { record: unknown; names: string }[] {
  const { totals: _totals, ...noTotals } = goodRun('no-totals', updatedAt);
  return [
    { record: noTotals, names: 'totals' },
    {
      record: goodRun('question-number', updatedAt + 1, { question: 42 as unknown as string }),
      names: 'question',
    },
    {
      record: goodRun('plan-null', updatedAt + 2, { plan: null as unknown as RunRecord['plan'] }),
      names: 'plan',
    },
    {
      record: goodRun('pool-string', updatedAt + 3, { pool: 'w1,w2' as unknown as RunRecord['pool'] }),
      names: 'pool',
    },
    {
      record: goodRun('running-null-question', updatedAt + 4, {
        status: 'running',
        question: null as unknown as string,
      }),
      names: 'question',
    },
  ];
}

/** Steps that make their run unreadable, each with the field its reason must name. */
export function badSteps(runId: string): { step: unknown; names: string }[] {
  return [
    { step: goodStep(runId, 0, { timings: null as unknown as StepRecord['timings'] }), names: 'timings' },
    { step: goodStep(runId, 0, { text: { html: '<b>' } as unknown as string }), names: 'text' },
    { step: goodStep(runId, 0, { sees: '0,1' as unknown as StepRecord['sees'] }), names: 'sees' },
  ];
}

/** Writes records straight into a version-1 runs database (the schema before summaries existed). */
export function writeVersion1(name: string, runs: unknown[], steps: unknown[]): Promise<void> {
  return writeVersion1Database({ name, runs, steps });
}
