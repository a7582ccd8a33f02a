import type { LedgerEntry } from '../egress/ledger.ts';

/**
 * Which ledger entries are a step's first request after another worker failed it (failover): entry id →
 * the label (else id) of the worker it took over from. Read off the entries given (a page of the ledger),
 * in the order they were written: a step's requests that change worker mark a takeover.
 */
export function takeoversIn(
  entries: readonly Pick<LedgerEntry, 'id' | 'runId' | 'stepIndex' | 'workerId' | 'worker'>[],
): Map<number, string> {
  const last = new Map<string, { workerId: string; name: string }>();
  const notes = new Map<number, string>();
  for (const entry of [...entries].sort((a, b) => a.id - b.id)) {
    if (entry.runId === undefined || entry.stepIndex === undefined || entry.workerId === undefined) continue;
    const step = `${entry.runId}\u0000${entry.stepIndex}`;
    const before = last.get(step);
    if (before && before.workerId !== entry.workerId) notes.set(entry.id, before.name);
    last.set(step, { workerId: entry.workerId, name: entry.worker || entry.workerId });
  }
  return notes;
}
