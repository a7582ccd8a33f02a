import type { StepStatus } from '../records/run-types.ts';
import { raceAbort } from './abort.ts';
import type { RunState } from './run-state.ts';
import { selfCheck } from './self-check.ts';

/**
 * A `self` step: once the plan is complete and the answers it reads are stored, asks the conductor for
 * corrective steps (appended after the whole plan, one level deeper), or accepts the current answer.
 */
export async function runSelf(run: RunState, index: number, signal: AbortSignal): Promise<void> {
  const status = run.statuses[index] as StepStatus;
  status.state = 'running';
  status.attempts = 1;
  status.timings.startedAt = run.now();
  run.emitStep(status, { type: 'step-started', attempt: 1 });
  run.writeStep(status);
  // Corrective steps are appended after the whole plan, so wait until the plan is complete.
  await raceAbort(run.planCompleted, signal);
  await raceAbort(run.inputsStored(index), signal);
  const outcome = await selfCheck({
    index,
    depth: status.depth,
    question: run.options.question,
    steps: run.steps,
    statuses: run.statuses,
    deps: run.deps,
    conductor: run.options.conductor,
    maxDepth: run.maxDepth,
    maxTotalSteps: run.maxTotalSteps,
    validation: run.planRules(),
    signal,
  });
  if (outcome.add) {
    const from = run.steps.length;
    const depth = status.depth + 1;
    for (const step of outcome.add) run.addStep(step, depth);
    run.emit({ type: 'steps-added', from, steps: outcome.add, depth });
    run.writeRun();
  }
  accept(run, index, outcome.note);
}

function accept(run: RunState, index: number, note: string): void {
  const status = run.statuses[index] as StepStatus;
  status.text = note;
  run.endStep(index, 'done');
}
