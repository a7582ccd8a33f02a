import type { Step } from '../plan/index.ts';
import type { StepStatus } from './types.ts';

// Totals are spend: they live with the rest of the spend rules.
export { totalsOf } from './spend.ts';

/** A step's status when it joins a run: queued, no answer, no attempt yet. */
export function queuedStatus(step: Step, index: number, depth: number, now: number): StepStatus {
  return {
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
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))} s`;
}

/**
 * What a step is waiting for, why, and for how long yet, in words for its card:
 * "No answer yet after 60 s; retrying in 3 s (attempt 2 of 3)". Undefined when it waits on nothing.
 * `label` names the step's worker as the user named it.
 */
export function describeWait(
  step: Pick<StepStatus, 'wait' | 'state'>,
  now: number,
  label: string,
): string | undefined {
  const wait = step.wait;
  if (!wait || (step.state !== 'queued' && step.state !== 'running')) return undefined;
  switch (wait.kind) {
    case 'slot':
      return `Waiting for a free request slot at ${wait.endpoint} (${wait.limit} at a time).`;
    case 'first-token': {
      const tries = wait.maxAttempts > 1 ? ` (attempt ${wait.attempt} of ${wait.maxAttempts})` : '';
      return `Waiting for ${label} to start answering: ${seconds(now - wait.since)} so far, gives up in ${seconds(wait.deadline - now)}${tries}.`;
    }
    case 'retry': {
      const next = wait.attempt + 1;
      return `${wait.reason.replace(/\.$/, '')}; retrying in ${seconds(wait.until - now)} (attempt ${next} of ${wait.maxAttempts}).`;
    }
  }
}
