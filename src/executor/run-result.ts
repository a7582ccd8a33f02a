import type { RunStatus } from '../records/run-types.ts';
import { CANCEL_REASON } from './abort.ts';
import type { RunState } from './run-state.ts';
import { totalsOf } from './spend.ts';
import { finalStepIndex } from './step-status.ts';
import type { RunResult } from './types.ts';

/** What a run settles with once every step has ended: its status, answer, failures, totals and error. */
export function runResultOf(run: RunState): RunResult {
  const finalStep = finalStepIndex(run.statuses);
  const final = finalStep === undefined ? undefined : run.statuses[finalStep];
  const answer = final?.state === 'done' ? final.text : undefined;
  const failed = run.statuses
    .filter((s) => s.state === 'failed' || s.state === 'cancelled')
    .map((s) => ({ index: s.index, reason: s.error ?? s.state }));
  let status: RunStatus;
  if (run.cancelled || run.abandoned) status = 'cancelled';
  else if (run.planError || answer === undefined) status = 'failed';
  else status = failed.length === 0 ? 'done' : 'partial';
  const result: RunResult = {
    runId: run.runId,
    status,
    steps: run.stepStatuses(),
    failed,
    totals: totalsOf(run.statuses),
    startedAt: run.startedAt,
    endedAt: run.now(),
  };
  if (answer !== undefined) result.answer = answer;
  if (finalStep !== undefined) result.finalStep = finalStep;
  // A limit passed by the very last answer stopped nothing: the run is simply done.
  const spendStop = failed.length > 0 ? run.spendStop : undefined;
  const error = run.planError ?? spendStop ?? (run.cancelled ? CANCEL_REASON['cancel-run'] : undefined);
  if (error) result.error = error;
  return result;
}
