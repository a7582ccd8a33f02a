import type { WorkerSpec } from '../pool/types.ts';
import { interruptedSpend } from './spend.ts';
import type { StepRecord } from './store.ts';
import type { StepStatus } from './types.ts';

/** What resume needs of the egress ledger: which steps' requests left the page. */
export interface SentRequests {
  list(filter?: { runId?: string }): Promise<{ stepIndex?: number; sent: boolean }[]>;
}

/** How many requests of each step of `runId` the ledger saw leave. */
export async function sentPerStep(
  ledger: SentRequests | undefined,
  runId: string,
): Promise<Map<number, number>> {
  const sent = new Map<number, number>();
  if (!ledger) return sent;
  for (const entry of await ledger.list({ runId })) {
    if (entry.sent && entry.stepIndex !== undefined) {
      sent.set(entry.stepIndex, (sent.get(entry.stepIndex) ?? 0) + 1);
    }
  }
  return sent;
}

/**
 * A stored run's steps as a resumed run starts them: done steps as they are; every other step queued
 * from the start, keeping what it has spent. A step with paid work whose answer was not saved gets a
 * `notice` saying it is paid for again: a request that was out when the page stopped (its `done` write
 * never came), or requests the ledger saw leave that the step's record never got (that write failed).
 */
export function resumedStatuses(
  steps: readonly StepRecord[],
  pool: readonly WorkerSpec[],
  sent: ReadonlyMap<number, number>,
): StepStatus[] {
  const workers = new Map(pool.map((w) => [w.id, w]));
  return steps.map(({ runId: _runId, ...step }) => {
    if (step.state === 'done') return step;
    const requests = (step.requests ?? []).map((r) =>
      r.outcome === 'in-flight'
        ? interruptedSpend(r, step.text, workers.get(step.worker), step.reasoning)
        : r,
    );
    const fresh: StepStatus = {
      ...step,
      state: 'queued',
      text: '',
      // The reasoning and sources belonged to the answer that was lost.
      reasoning: undefined,
      citations: undefined,
      attempts: 0,
      usage: undefined,
      cost: undefined,
      error: undefined,
      timings: { queuedAt: step.timings.queuedAt },
    };
    delete fresh.wait;
    delete fresh.notice;
    if (requests.length > 0) fresh.requests = requests;
    const interrupted = (step.requests ?? []).filter((r) => r.outcome === 'in-flight').length;
    const unrecorded = Math.max(0, (sent.get(step.index) ?? 0) - (step.requests?.length ?? 0));
    const lost = interrupted + unrecorded;
    if (lost > 0) {
      fresh.notice =
        `Step ${step.index}'s earlier answer was paid for but not saved` +
        `${lost > 1 ? ` (${lost} requests)` : ''}; it runs again and is paid for again.`;
    }
    return fresh;
  });
}
