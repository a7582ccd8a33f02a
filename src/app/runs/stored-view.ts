import { finalStepIndex } from '../../executor/step-status.ts';
import { type RunRecord, type StepRecord, threadLinkOf } from '../../records/runs-db.ts';
import { LOCAL_WORKER, labelsOf } from '../../shared/worker-ids.ts';
import type { RunView } from './run-model.ts';

/** A stored run as the Watch screen shows it. */
export function viewFromRecord(run: RunRecord, steps: readonly StepRecord[]): RunView {
  const mode = run.mode === 'router' ? 'router' : 'conductor';
  const view: RunView = {
    id: run.id,
    question: run.question,
    mode,
    // A stored plan not run yet is back in review (openRun gives it its editor); a failed planning is a failure.
    phase: run.status === 'planned' ? 'review' : run.status === 'planning-failed' ? 'failed' : run.status,
    planText: '',
    plannedSteps: run.plan.steps,
    steps: steps.map(({ runId: _runId, ...s }) => s),
    startedAt: run.createdAt,
    endedAt: Math.max(run.createdAt, ...steps.map((s) => s.timings.endedAt ?? 0)),
    totals: run.totals,
    workerOrder: [...run.pool.map((w) => w.id), LOCAL_WORKER],
    workerLabels: labelsOf(run.pool),
    pool: run.pool,
  };
  if (run.plan.thought) view.thought = run.plan.thought;
  // The executor's rule (the last non-`self` step), as its run-done event gives it for a live run.
  const finalStep = finalStepIndex(view.steps);
  if (finalStep !== undefined && run.status !== 'running') view.finalStep = finalStep;
  if (run.answer !== undefined) view.answer = run.answer;
  if (run.error !== undefined) view.error = run.error;
  if (run.errorDetails) view.errorDetails = run.errorDetails;
  if (run.status === 'planning-failed') view.retry = { mode: run.chosenBy ? 'auto' : mode, review: false };
  if (run.chosenBy) view.chosenBy = run.chosenBy;
  if (run.planNote) view.planNote = run.planNote;
  if (run.attachments) view.attachments = run.attachments;
  if (run.threadId !== undefined) view.thread = { link: threadLinkOf(run) };
  return view;
}
