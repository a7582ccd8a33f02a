import { snapshotPool } from '../records/run-store.ts';
import { type Plan, type Step, validatePlan, validateStep } from '../shared/plan/index.ts';
import { closeQuietly, nextOrAbort, StopSignal } from './abort.ts';
import type { RunState } from './run-state.ts';
import { stopSteps } from './stopping.ts';

function isPlan(value: Plan | AsyncIterable<Step>): value is Plan {
  return typeof value === 'object' && value !== null && Array.isArray((value as Plan).steps);
}

/**
 * Takes the run's plan in: a whole plan (checked at once), steps as the incremental parser emits them
 * (step 0 may start before step 2 exists), or nothing when resuming (the stored plan). The run's record
 * and its queued steps go in one transaction, not one each.
 */
export function start(run: RunState, source: Plan | AsyncIterable<Step> | undefined): void {
  run.persistence.batch(() => begin(run, source));
}

function begin(run: RunState, source: Plan | AsyncIterable<Step> | undefined): void {
  run.emit({
    type: 'run-started',
    limits: { maxSteps: run.maxSteps, maxDepth: run.maxDepth, maxTotalSteps: run.maxTotalSteps },
    pool: snapshotPool(run.options.pool),
  });
  run.writeRun();
  if (source === undefined) {
    // Resuming: the plan is whatever was stored. Done steps are stored as they are; the rest were reset.
    for (const status of run.statuses) {
      if (status.state === 'done') continue;
      if (status.notice) run.emitStep(status, { type: 'step-notice', notice: status.notice });
      run.writeStep(status);
    }
    run.markPlanComplete();
    run.schedule();
    return;
  }
  if (isPlan(source)) {
    const checked = validatePlan(source, run.planRules());
    if (!checked.ok) {
      run.planError = `The plan is not valid: ${checked.message}`;
      run.markPlanComplete();
      run.schedule();
      return;
    }
    run.plan = checked.plan;
    for (const step of checked.plan.steps) run.addStep(step, 0);
    run.markPlanComplete();
    // The record written above had no plan yet: a run cut off by a reload must store the plan it ran.
    run.writeRun();
    run.schedule();
    return;
  }
  void consume(run, source);
}

async function consume(run: RunState, source: AsyncIterable<Step>): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await nextOrAbort(iterator, run.runController.signal);
      if (next.done) break;
      const index = run.steps.length;
      if (index >= run.maxSteps) {
        throw new Error(`The plan has more than ${run.maxSteps} steps; the limit is ${run.maxSteps}.`);
      }
      const checked = validateStep(next.value, index, run.planRules());
      if (!checked.ok) throw new Error(checked.message);
      run.plan = { ...run.plan, steps: [...run.plan.steps, checked.step] };
      run.addStep(checked.step, 0);
      run.schedule();
    }
    if (run.steps.length === 0) run.planError = 'The plan has no steps.';
  } catch (error) {
    if (error instanceof StopSignal) {
      closeQuietly(iterator);
    } else {
      run.planError = `The plan could not be read: ${error instanceof Error ? error.message : String(error)}`;
      // Nothing after a broken plan can be trusted to make sense: stop what is running.
      stopSteps(run, 'plan-error');
    }
  }
  run.markPlanComplete();
  run.writeRun();
  run.schedule();
}
