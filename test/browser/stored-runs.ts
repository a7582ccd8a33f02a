import type { Page } from '@playwright/test';
import type { RunRecord, StepRecord } from '../../src/records/runs-db.ts';
import { goodRun, goodStep } from '../fixtures/run-records.ts';
import { writeVersion1Database } from '../fixtures/version1-runs.ts';
import { writeBeforeApp } from './seed-app.ts';

// Run records written straight into the browser's IndexedDB as Baton's first database version stored them.

const T0 = 1_750_000_000_000;

/** A done run as the app's first database version stored it, `at` ms after a fixed start. */
export function storedRun(id: string, at: number, overrides: Record<string, unknown> = {}): RunRecord {
  return goodRun(id, T0 + at, {
    question: `Stored question ${id}`,
    plan: { steps: [{ worker: 'w1', task: 'Say it.', sees: [] }] },
    createdAt: T0 + at,
    totals: { promptTokens: 2, completionTokens: 1, cost: 0, steps: 1, done: 1, failed: 0, cancelled: 0 },
    answer: `Stored answer ${id}`,
    ...(overrides as Partial<RunRecord>),
  });
}

/** Its one step, done. */
export function storedStep(runId: string, overrides: Record<string, unknown> = {}): StepRecord {
  return goodStep(runId, 0, {
    task: 'Say it.',
    text: `Stored answer ${runId}`,
    timings: { queuedAt: T0, startedAt: T0 + 1, endedAt: T0 + 2 },
    ...(overrides as Partial<StepRecord>),
  });
}

/**
 * Writes runs and steps into a version-1 `baton-runs` database at the start of the page's next document,
 * before the app opens (and upgrades) it: call it before the app has opened in the context.
 */
export async function seedVersion1(page: Page, runs: unknown[], steps: unknown[]): Promise<void> {
  await writeBeforeApp(page, writeVersion1Database, { name: 'baton-runs', runs, steps });
}

const NOTHING_SPENT = { promptTokens: 0, completionTokens: 0, cost: 0, done: 0, failed: 0, cancelled: 0 };

/** A plan not run yet, as review and Plan only store one: opened from History, it is back in review. */
export function plannedRun(
  id: string,
  run: { question: string; pool: unknown[]; steps: Array<{ worker: string; task: string; sees: number[] }> },
) {
  return storedRun(id, 0, {
    status: 'planned',
    question: run.question,
    pool: run.pool,
    plan: { steps: run.steps },
    totals: { ...NOTHING_SPENT, steps: run.steps.length },
    answer: undefined,
  });
}
