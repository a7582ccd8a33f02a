/**
 * Writes the conductor thread's requests (model downloads, and calls to a local planner server) in the
 * egress ledger. The thread reports them
 * (workers/download-reporter.ts) through the bridge; this side owns the ledger, so the entries go through
 * the same `Ledger` object as every other request and the ledger panel sees them at once.
 */
import type { ModelDownloadReport } from '../shared/conductor-api.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';

/** Who fetched them: the conductor model (the ledger's `providerId` column). */
export const MODEL_DOWNLOAD_PROVIDER = 'conductor-model';
/** Who called the local planner server: the conductor (the ledger's `providerId` column). */
export const LOCAL_PLANNER_PROVIDER = 'local-planner';

/**
 * A report handler for `ConductorBridge`'s `onModelDownload`. `start` resolves once the entry is written
 * (and rejects when it cannot be, so that the download does not leave unrecorded).
 */
export function modelDownloadRecorder(
  ledger: () => Promise<Pick<Ledger, 'add' | 'update'>>,
  now: () => number = Date.now,
): (report: ModelDownloadReport) => Promise<void> {
  const open = new Map<string, LedgerEntry>();
  /** Entries ended lately: a planner request's tokens may be reported after its body ended. */
  const ended = new Map<string, LedgerEntry>();
  const ENDED_KEPT = 32;
  /** Updates run one after another, so a late `response` cannot overwrite an `end`. */
  let writes: Promise<unknown> = Promise.resolve();
  /** `afterEnd`: the change may also apply to an entry that has ended (tokens, never a state). */
  const update = (id: string, changes: Partial<LedgerEntry>, close: boolean, afterEnd = false) => {
    const entry = open.get(id) ?? (afterEnd ? ended.get(id) : undefined);
    if (!entry) return writes;
    const next = { ...entry, ...changes };
    if (open.has(id)) {
      if (close) {
        open.delete(id);
        ended.set(id, next);
        if (ended.size > ENDED_KEPT) ended.delete(ended.keys().next().value as string);
      } else open.set(id, next);
    } else ended.set(id, next);
    writes = writes
      .then(async () => (await ledger()).update(next))
      .catch((error) => console.error('ledger write failed', error));
    return writes;
  };

  return async (report) => {
    if (report.kind === 'start') {
      let url: URL | undefined;
      try {
        url = new URL(report.url);
      } catch {
        url = undefined;
      }
      const entry = await (await ledger()).add({
        time: now(),
        purpose: report.purpose ?? 'model-download',
        providerId: report.purpose === 'local-planning' ? LOCAL_PLANNER_PROVIDER : MODEL_DOWNLOAD_PROVIDER,
        host: url?.host ?? '(invalid URL)',
        method: report.method,
        path: url?.pathname ?? '',
        sent: true,
        keyAttached: false,
        state: 'pending',
        bytesOut: report.bytesOut ?? 0,
        bytesIn: 0,
      });
      open.set(report.id, entry);
      return;
    }
    if (report.kind === 'usage') {
      await update(
        report.id,
        { promptTokens: report.promptTokens, completionTokens: report.completionTokens },
        false,
        true,
      );
      return;
    }
    if (report.kind === 'response') {
      await update(report.id, { state: 'streaming', status: report.status }, false);
      return;
    }
    if (report.kind === 'end') {
      const started = open.get(report.id)?.time ?? now();
      await update(
        report.id,
        {
          state: report.error === undefined ? 'done' : 'error',
          ...(report.status !== undefined ? { status: report.status } : {}),
          bytesIn: report.bytes,
          durationMs: now() - started,
          ...(report.error !== undefined ? { error: report.error.slice(0, 300) } : {}),
        },
        true,
      );
      return;
    }
    // The thread died: whatever it was downloading ended with it.
    await Promise.all(
      [...open.keys()].map((id) => {
        const started = open.get(id)?.time ?? now();
        return update(
          id,
          { state: 'error', error: `Stopped: ${report.reason}`.slice(0, 300), durationMs: now() - started },
          true,
        );
      }),
    );
  };
}
