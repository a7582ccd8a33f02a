import { CANCEL_REASON, type CancelCause, StopSignal } from './abort.ts';
import { type RunState, TERMINAL } from './run-state.ts';
import { liveSpend, overSpendLimit, spendLimitMessage } from './spend-limit.ts';

// How a run or one of its steps stops before its end: the user's cancel, the spend limit, a broken plan,
// or a reload (abandon). A running step is stopped through its controller and ends itself (step-dispatch);
// a step not yet running ends here.

/** Cancels one step (queued or running); the steps that depend on it are cancelled with it. */
export function cancelStep(run: RunState, index: number): void {
  const status = run.statuses[index];
  if (!status || TERMINAL.has(status.state)) return;
  const controller = run.stepControllers.get(index);
  if (controller) {
    controller.abort(new StopSignal('cancel-step'));
    return;
  }
  run.endStep(index, 'cancelled', CANCEL_REASON['cancel-step']);
  run.schedule();
}

export function cancel(run: RunState): void {
  if (run.finished || run.cancelled) return;
  run.cancelled = true;
  run.runController.abort(new StopSignal('cancel-run'));
  stopSteps(run, 'cancel-run');
  run.schedule();
}

/** Aborts every running step with `cause` (each ends itself) and cancels every step not yet running. */
export function stopSteps(run: RunState, cause: CancelCause): void {
  for (const [, controller] of run.stepControllers) controller.abort(new StopSignal(cause));
  for (const status of run.statuses) {
    if (!TERMINAL.has(status.state) && !run.stepControllers.has(status.index)) {
      run.endStep(status.index, 'cancelled', CANCEL_REASON[cause]);
    }
  }
}

/** Changes the run's spend limit from now on; a run already past the new one stops. */
export function setSpendLimit(run: RunState, usd: number | undefined): void {
  run.spendLimit = usd;
  run.checkSpend();
}

/** Stops the run once what it has spent passes its limit (checked as requests leave and answers stream). */
export function checkSpend(run: RunState): void {
  const limit = run.spendLimit;
  if (limit === undefined || run.spendStop || run.cancelled || run.finished) return;
  const spent = liveSpend(run.statuses) - run.spendBaseline;
  if (!overSpendLimit(spent, limit)) return;
  run.spendStop = spendLimitMessage(limit, spent);
  run.runController.abort(new StopSignal('spend-limit'));
  stopSteps(run, 'spend-limit');
  // Called from inside a step's event: schedule once that step's own work has moved on.
  queueMicrotask(() => run.schedule());
}

/** Stops at once without writing anything more, as a page reload would. */
export function abandon(run: RunState): void {
  if (run.finished) return;
  run.abandoned = true;
  run.persistence.stop();
  run.runController.abort(new StopSignal('abandon'));
  for (const [, controller] of run.stepControllers) controller.abort(new StopSignal('abandon'));
  run.finish();
}
