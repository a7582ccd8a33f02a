/**
 * Continue: an answer the provider cut at its output limit (`StepStatus.cutAtLimit`) is asked for the rest.
 * The step goes back to its worker with what it was sent before, its cut answer as the assistant's turn,
 * and one user turn asking it to go on; what comes is appended to the same answer. The page marks the
 * stored step (`resetForContinue`) and resumes the run, so the continuation is a request of the step like
 * any other: counted in its spend, the run's totals and the spend limit, written to the ledger, failed over
 * and resumed as the step's requests are.
 */
import type { RunStore } from '../records/run-store.ts';
import type { StepStatus } from '../records/run-types.ts';
import type { RunRecord, StepRecord } from '../records/runs-db.ts';
import type { PartsMessage } from '../shared/chat.ts';
import { dependencies, downstream } from './dag.ts';

/** The user turn that asks for the rest of a cut answer. */
export const CONTINUE_PROMPT =
  'Your answer above was cut off at the output limit. Continue it exactly where it stopped: do not repeat ' +
  'anything already written, do not start over, and add no preface.';

/** The answer a step being continued goes on from (its first `continuing` characters), or undefined. */
export function continuedFrom(status: Pick<StepStatus, 'continuing' | 'text'>): string | undefined {
  return status.continuing === undefined ? undefined : status.text.slice(0, status.continuing);
}

/** A step's messages, asking for the rest of `answer`: it as the assistant's turn, then CONTINUE_PROMPT. */
export function continuationMessages(messages: PartsMessage[], answer: string | undefined): PartsMessage[] {
  if (answer === undefined) return messages;
  return [...messages, { role: 'assistant', content: answer }, { role: 'user', content: CONTINUE_PROMPT }];
}

/**
 * Makes a stored run ready to continue step `index`'s cut answer: the step is queued with its answer kept
 * (`continuing`: its length), every step that read it is queued afresh (they see the whole answer), and the
 * run is marked running. Resuming it (`resumeRun`) then sends the continuation. What the step spent stays
 * in its requests, so the totals count both requests.
 */
export async function resetForContinue(
  store: Pick<RunStore, 'putStep' | 'putRun'>,
  stored: { run: RunRecord; steps: readonly StepRecord[] },
  index: number,
  now: number = Date.now(),
): Promise<void> {
  const step = stored.steps.find((s) => s.index === index);
  if (step?.state !== 'done' || !step.cutAtLimit) {
    throw new Error(`Step ${index}'s answer was not cut at the output limit: there is nothing to continue.`);
  }
  const later = new Set(downstream(dependencies(stored.steps), index));
  for (const s of stored.steps) {
    if (s.index !== index && !later.has(s.index)) continue;
    const queued: StepRecord = {
      ...s,
      state: 'queued',
      attempts: 0,
      timings: { queuedAt: now },
      ...(s.index === index ? { continuing: s.text.length } : { text: '' }),
    };
    delete queued.usage;
    delete queued.cost;
    delete queued.error;
    delete queued.cutAtLimit;
    await store.putStep(queued);
  }
  await store.putRun({ ...stored.run, status: 'running', updatedAt: now });
}
