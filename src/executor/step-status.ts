import type { StepStatus } from '../records/run-types.ts';
import type { Step } from '../shared/plan/index.ts';
import { SELF_WORKER } from '../shared/worker-ids.ts';

// Totals are spend: they live with the rest of the spend rules.
export { totalsOf } from './spend.ts';

/** A step's status when it joins a run: queued, no answer, no attempt yet. */
export function queuedStatus(step: Step, index: number, depth: number, now: number): StepStatus {
  const status: StepStatus = {
    index,
    worker: step.worker,
    task: step.task,
    sees: step.sees,
    depth,
    state: 'queued',
    text: '',
    timings: { queuedAt: now },
    attempts: 0,
  };
  if (step.pin) status.pin = true;
  if (step.files !== undefined) status.files = step.files;
  return status;
}

/** A copy of a step's status that later changes to the live one do not reach. */
export function copyStatus(status: StepStatus): StepStatus {
  const copy: StepStatus = { ...status, timings: { ...status.timings } };
  if (status.requests) copy.requests = status.requests.slice();
  if (status.takeovers) copy.takeovers = status.takeovers.slice();
  if (status.citations) copy.citations = status.citations.slice();
  if (status.toolCalls) copy.toolCalls = status.toolCalls.slice();
  return copy;
}

/** The index whose answer is the run's final answer: the last step that is not the conductor itself. */
export function finalStepIndex(steps: readonly Pick<StepStatus, 'worker'>[]): number | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]?.worker !== SELF_WORKER) return i;
  return undefined;
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.floor(ms / 1000))} s`;
}

/** Time left, rounded up: "in 0 s" would read as "now" while it is not yet. */
function secondsLeft(ms: number): string {
  return `${Math.max(0, Math.ceil(ms / 1000))} s`;
}

/**
 * What a step is waiting for, why, and for how long yet, in words for its card, e.g.
 * "No answer began within 60 s; retrying in 3 s (attempt 2 of 3)." Undefined when it waits on nothing.
 */
export function describeWait(step: Pick<StepStatus, 'wait' | 'state'>, now: number): string | undefined {
  const wait = step.wait;
  if (!wait || (step.state !== 'queued' && step.state !== 'running')) return undefined;
  switch (wait.kind) {
    case 'slot':
      return `Waiting for a free request slot at ${wait.endpoint} (${wait.limit} at a time).`;
    case 'first-token': {
      const tries = wait.maxAttempts > 1 ? ` (attempt ${wait.attempt} of ${wait.maxAttempts})` : '';
      return `No answer yet after ${seconds(now - wait.since)}; gives up in ${secondsLeft(wait.deadline - now)}${tries}.`;
    }
    case 'retry':
      return `${wait.reason.replace(/\.$/, '')}; retrying in ${secondsLeft(wait.until - now)} (attempt ${wait.attempt + 1} of ${wait.maxAttempts}).`;
  }
}
