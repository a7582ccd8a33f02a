import { planningFailedRecord } from './plan-records.ts';
import { type PlanningFailure, planningFailure } from './planning-failure.ts';
import type { Planning } from './planning-state.ts';
import type { RunCore } from './run-core.ts';
import { newRunView, type RunView } from './run-model.ts';

/** A planning that ended before its plan was written: cancelled, or the conductor failed. */
export function createStoppedPlanning(core: RunCore) {
  const { currentRun } = core;

  /** Planning ended early: cancelled (by the user or a newer question), or the conductor failed. */
  async function planningStopped(p: Planning, error: unknown): Promise<void> {
    p.feed?.cancel();
    if ((error as { name?: string }).name === 'PlanCancelled' || p.abort.signal.aborted) {
      core.handle?.cancel();
      core.update(p.runId, (v) => ({
        ...v,
        phase: 'cancelled',
        error: 'Cancelled while planning.',
        endedAt: Date.now(),
      }));
      return;
    }
    const retry = {
      mode: p.chosenBy ? ('auto' as const) : p.input.mode,
      review: p.input.review,
      ...(p.input.planOnly ? { planOnly: true } : {}),
    };
    await planningFailed(p, planningFailure(error), retry);
  }

  /**
   * The conductor could not plan: the run says what failed (the engine's words behind Details), offers to
   * ask again, and is stored, so History keeps it. Steps that streamed before the failure ran as a run of
   * their own: it is stopped, and its record, once written, says the planning failed.
   */
  async function planningFailed(p: Planning, failure: PlanningFailure, retry: NonNullable<RunView['retry']>) {
    const { runId } = p;
    const show = () =>
      core.update(runId, (v) => ({
        ...v,
        phase: 'failed',
        error: failure.text,
        errorDetails: failure.details,
        retry,
        endedAt: v.endedAt ?? Date.now(),
      }));
    show();
    const run = await p.streamed?.catch(() => undefined);
    if (run) {
      run.cancel();
      await run.result.catch(() => undefined);
      show(); // over the stopped run's own end
    }
    const view = currentRun.value;
    await core.storeRecord(async (store) => {
      const existing = run ? (await store.getRun(runId).catch(() => undefined))?.run : undefined;
      const base = view?.id === runId ? view : newRunView(runId, '', 'conductor');
      return planningFailedRecord(base, p.enabled, failure, existing);
    });
  }

  return { planningStopped };
}
