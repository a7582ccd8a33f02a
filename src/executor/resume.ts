import type { RunStore } from '../records/run-store.ts';
import type { StepStatus } from '../records/run-types.ts';
import type { RunRecord, StepRecord } from '../records/runs-db.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { continuedFrom } from './continuation.ts';
import { dependencies, downstream } from './dag.ts';
import { interruptedSpend } from './spend.ts';

/** A ledger row as resume reads it: a request that left the page (`sent`), and how far its answer came. */
export interface SentRequest {
  stepIndex?: number;
  sent: boolean;
  purpose?: string;
  /** `done` once the whole answer arrived. */
  state?: string;
  bytesIn?: number;
}

/** What resume needs of the egress ledger: which steps' requests left the page. */
export interface SentRequests {
  list(filter?: { runId?: string }): Promise<SentRequest[]>;
}

/** The requests of each step of `runId` the ledger saw leave, oldest first (probes are no step's). */
export async function sentPerStep(
  ledger: SentRequests | undefined,
  runId: string,
): Promise<Map<number, SentRequest[]>> {
  const sent = new Map<number, SentRequest[]>();
  if (!ledger) return sent;
  for (const entry of await ledger.list({ runId })) {
    // A tool call is no request of the step's model: its step's record never counts it.
    if (
      entry.sent &&
      entry.stepIndex !== undefined &&
      entry.purpose !== 'probe' &&
      entry.purpose !== 'tool'
    ) {
      sent.set(entry.stepIndex, [...(sent.get(entry.stepIndex) ?? []), entry]);
    }
  }
  return sent;
}

/** A step not stored as done whose paid requests' answers were not saved. */
export interface LostAnswer {
  index: number;
  /** Requests paid for whose answer is gone. */
  requests: number;
  /** Bytes of those answers that had arrived whole (the ledger saw their end), 0 when none had. */
  receivedBytes: number;
}

/**
 * The steps of a stored run whose paid answers were lost: a request that was out when the page stopped
 * (the record has it in flight: its `done` write never came), or requests the ledger saw leave that the
 * step's record never got (that write failed, the disk being full). Running such a step again pays again.
 */
export function lostAnswers(
  steps: readonly StepRecord[],
  sent: ReadonlyMap<number, readonly SentRequest[]>,
): LostAnswer[] {
  const lost: LostAnswer[] = [];
  for (const step of steps) {
    if (step.state === 'done') continue;
    const recorded = step.requests?.length ?? 0;
    const interrupted = (step.requests ?? []).filter((r) => r.outcome === 'in-flight').length;
    const left = sent.get(step.index) ?? [];
    const unrecorded = Math.max(0, left.length - recorded);
    const requests = interrupted + unrecorded;
    if (requests === 0) continue;
    // The ledger's newest rows of the step are the ones the record lost (it keeps them in order).
    const receivedBytes = left
      .slice(-requests)
      .filter((entry) => entry.state === 'done')
      .reduce((sum, entry) => sum + (entry.bytesIn ?? 0), 0);
    lost.push({ index: step.index, requests, receivedBytes });
  }
  return lost;
}

/** What is said of a lost answer, on the offer to resume and on the step when it runs again. */
export function lostAnswerNotice(lost: LostAnswer): string {
  const many = lost.requests > 1 ? ` (${lost.requests} requests)` : '';
  if (lost.receivedBytes > 0) {
    return (
      `Step ${lost.index}'s answer arrived whole (${formatBytes(lost.receivedBytes)}) and was paid for, but could ` +
      `not be saved${many}; it runs again and is paid for again.`
    );
  }
  return `Step ${lost.index}'s earlier answer was paid for but not saved${many}; it runs again and is paid for again.`;
}

/**
 * A stored run's steps as a resumed run starts them: done steps as they are; every other step queued
 * from the start, keeping what it has spent. A step with paid work whose answer was not saved
 * (`lostAnswers`) gets a `notice` saying it is paid for again.
 */
export function resumedStatuses(
  steps: readonly StepRecord[],
  pool: readonly WorkerSpec[],
  sent: ReadonlyMap<number, readonly SentRequest[]>,
): StepStatus[] {
  const workers = new Map(pool.map((w) => [w.id, w]));
  const lost = new Map(lostAnswers(steps, sent).map((l) => [l.index, l]));
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
      // A step being continued keeps the answer it goes on from (continuation.ts).
      text: continuedFrom(step) ?? '',
      // The reasoning and sources belonged to the answer that was lost.
      reasoning: undefined,
      citations: undefined,
      toolCalls: undefined,
      attempts: 0,
      usage: undefined,
      cost: undefined,
      error: undefined,
      timings: { queuedAt: step.timings.queuedAt },
    };
    delete fresh.wait;
    delete fresh.notice;
    if (requests.length > 0) fresh.requests = requests;
    const gone = lost.get(step.index);
    if (gone) fresh.notice = lostAnswerNotice(gone);
    return fresh;
  });
}

/**
 * Makes a stored run ready to run step `index` again, with every step that depends on it: those steps are
 * queued afresh in the store (answer, usage, cost and error gone) and the run is marked running. Resuming
 * it (`resumeRun`) then runs them, keeping every other done step's answer as context; what the reset steps
 * spent before stays in their requests, so the totals count both.
 */
export async function resetForRerun(
  store: Pick<RunStore, 'putStep' | 'putRun'>,
  stored: { run: RunRecord; steps: readonly StepRecord[] },
  index: number,
  now: number = Date.now(),
): Promise<void> {
  const reset = new Set([index, ...downstream(dependencies(stored.steps), index)]);
  for (const step of stored.steps) {
    if (!reset.has(step.index)) continue;
    const fresh: StepRecord = { ...step, state: 'queued', text: '', attempts: 0, timings: { queuedAt: now } };
    delete fresh.usage;
    delete fresh.cost;
    delete fresh.error;
    await store.putStep(fresh);
  }
  await store.putRun({ ...stored.run, status: 'running', updatedAt: now });
}
