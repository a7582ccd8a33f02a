import { totalsOf } from '../../executor/step-status.ts';
import { snapshotPool } from '../../records/run-store.ts';
import type { RunRecord } from '../../records/runs-db.ts';
import type { Plan } from '../../shared/plan/index.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { PlanningFailure } from './planning-failure.ts';
import type { RunView } from './run-model.ts';

/**
 * Records of runs that never reached the executor (which stores the rest), so History keeps every run:
 * a plan waiting for review or made with Plan only, and a question the conductor could not plan.
 */

function baseRecord(
  view: RunView,
  pool: readonly WorkerSpec[],
  now: number,
): Omit<RunRecord, 'status' | 'plan'> {
  const record: Omit<RunRecord, 'status' | 'plan'> = {
    id: view.id,
    question: view.question,
    mode: view.mode,
    pool: snapshotPool(pool),
    planComplete: true,
    includeQuestion: true,
    createdAt: view.startedAt,
    updatedAt: now,
    totals: totalsOf([]),
  };
  if (view.chosenBy) record.chosenBy = view.chosenBy;
  if (view.planNote) record.planNote = view.planNote;
  // A turn of a thread stays in it, planned or failed.
  if (view.thread) Object.assign(record, view.thread.link);
  // The files it was asked with: their bytes are stored when it is (awaitReview keeps them).
  if (view.attachments?.length) {
    record.attachments = view.attachments;
    record.attachmentIds = [...new Set(view.attachments.map((a) => a.id))];
  }
  return record;
}

/** A plan the user has not run yet: reopened from History, it is reviewed and run from there. */
export function plannedRecord(
  view: RunView,
  plan: Plan,
  pool: readonly WorkerSpec[],
  planOnly: boolean,
  now: number = Date.now(),
): RunRecord {
  const base = baseRecord(view, pool, now);
  return {
    ...base,
    // Steps planned, none run: History counts them.
    totals: { ...base.totals, steps: plan.steps.length },
    status: 'planned',
    plan,
    ...(planOnly ? { planOnly: true } : {}),
  };
}

/** A question the conductor could not plan; `existing` is what the executor stored of it (steps streamed before the failure). */
export function planningFailedRecord(
  view: RunView,
  pool: readonly WorkerSpec[],
  failure: PlanningFailure,
  existing: RunRecord | undefined,
  now: number = Date.now(),
): RunRecord {
  const base: RunRecord = existing ?? {
    ...baseRecord(view, pool, now),
    status: 'planning-failed',
    plan: { steps: view.plannedSteps },
    planComplete: false,
  };
  return {
    ...base,
    status: 'planning-failed',
    error: failure.text,
    errorDetails: failure.details,
    updatedAt: now,
  };
}
