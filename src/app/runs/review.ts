import { type Plan, planLimitsFor } from '../../shared/plan/index.ts';
import { callsTools } from '../../tools/tool-workers.ts';
import { keepRunFiles } from '../run-files.ts';
import { keylessWorkers } from '../services.ts';
import { samePlan } from './plan-notes.ts';
import { plannedRecord } from './plan-records.ts';
import type { RunCore } from './run-core.ts';
import { estimateRun } from './run-estimate.ts';
import { enterReview, leaveReview, type RunView } from './run-model.ts';
import type { ReviewInput } from './run-services.ts';
import type { SpendConfirmation } from './spend-confirm.ts';
import { runSpendLimit } from './spend-confirm.ts';
import type { RunStarts } from './starting.ts';

/** A plan in review: shown in the plan editor, stored as planned, then run (maybe edited) or discarded. */
export function createReview(core: RunCore, spend: SpendConfirmation, starts: RunStarts) {
  const { services, currentRun, pendingReview } = core;

  /**
   * Puts a plan in review (the plan editor) and stores it as a planned run: History keeps it, and opening
   * it there brings it back to review, to be run or discarded.
   */
  async function awaitReview(runId: string, input: ReviewInput): Promise<void> {
    core.update(runId, (v) => enterReview(v));
    const view = await showReview(runId, input);
    if (view)
      await core.storeRecord(async (store) => {
        await keepRunFiles(store, core.runFiles.get(runId));
        return plannedRecord(view, input.plan, input.pool, input.planOnly);
      });
  }

  /** Gives the run on screen its plan editor; the view it is for, unless the user moved on meanwhile. */
  async function showReview(runId: string, input: ReviewInput): Promise<RunView | undefined> {
    const [keyless, pastLengths, offered] = await Promise.all([
      keylessWorkers(input.pool, services).catch(() => undefined),
      input.lengths ?? core.answerLengths(),
      services.tools?.offered().catch(() => undefined),
    ]);
    const view = currentRun.value;
    if (view?.id !== runId) return undefined;
    pendingReview.value = {
      plan: input.plan,
      pool: input.pool,
      limits: planLimitsFor(input.mode, services.planPrefs()),
      planOnly: input.planOnly,
      answerLengths: pastLengths,
      ...(keyless ? { keyless } : {}),
      // The user's edits are checked against the tools as offered now, as the conductor's plan was.
      ...(offered
        ? {
            tools: {
              names: offered.map((tool) => tool.name),
              toolWorkers: input.pool.filter(callsTools).map((w) => w.id),
            },
          }
        : {}),
    };
    return view;
  }

  /**
   * Runs the reviewed (maybe edited) plan. A plan estimated over the spend limit waits for the user's OK
   * first (`spendConfirm`); declined, it stays in review as it was.
   */
  async function runReviewed(plan: Plan): Promise<void> {
    const view = currentRun.value;
    const review = pendingReview.value;
    if (!view || !review) return;
    const estimate = estimateRun({
      question: view.question,
      steps: plan.steps,
      pool: review.pool,
      ...(review.answerLengths ? { answerLengths: review.answerLengths } : {}),
      turn: view.thread,
      files: core.runFiles.get(view.id),
    });
    if (!(await spend.approveSpend(view.id, estimate, false))) return;
    // The review may have been left while the confirm was open (a new question, a discard).
    if (pendingReview.value !== review || currentRun.value?.id !== view.id) return;
    const limitUsd = core.spendLimit();
    pendingReview.value = undefined;
    const { planNote: note, ...rest } = leaveReview(view);
    currentRun.value = {
      ...rest,
      // The note is about the plan the conductor wrote: once the user changed it, it no longer applies.
      ...(note && samePlan(plan, review.plan) ? { planNote: note } : {}),
      phase: 'running',
      plannedSteps: plan.steps,
      thought: plan.thought,
      estimate,
    };
    const runLimit = runSpendLimit(estimate.cost, limitUsd);
    await starts
      .execute(view.id, view.question, view.mode, plan, review.pool, runLimit)
      .catch((error: unknown) => core.failRun(view.id, error));
  }

  function discardReview(): void {
    spend.settleConfirm(false, false);
    const view = currentRun.value;
    pendingReview.value = undefined;
    if (!view) return;
    currentRun.value = {
      ...leaveReview(view),
      phase: 'cancelled',
      error: 'Plan discarded.',
      endedAt: Date.now(),
    };
    // History keeps the plan, as discarded.
    void core.storeRecord(async (store) => {
      const stored = await store.getRun(view.id).catch(() => undefined);
      if (stored?.run.status !== 'planned') return undefined;
      return { ...stored.run, status: 'cancelled', error: 'Plan discarded.', updatedAt: Date.now() };
    });
  }

  return { awaitReview, showReview, runReviewed, discardReview };
}

export type Review = ReturnType<typeof createReview>;
