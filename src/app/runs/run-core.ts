import { type Signal, signal } from '@preact/signals';
import type { AnswerLength } from '../../executor/estimate.ts';
import type { RunHandle } from '../../executor/executor.ts';
import type { RunHistoryStore } from '../../records/run-store.ts';
import type { RunRecord } from '../../records/runs-db.ts';
import { loadAnswerLengths } from '../price-text.ts';
import { createRunFiles } from '../run-files.ts';
import type { RunView } from './run-model.ts';
import type { PendingReview, RunServices } from './run-services.ts';

/** What every part of the runs shares: the run on screen, the live run, and the few actions on them. */
export interface RunCore {
  services: RunServices;
  /** The run on screen (being planned, reviewed, running, or opened from history). */
  currentRun: Signal<RunView | undefined>;
  pendingReview: Signal<PendingReview | undefined>;
  /** The live run, if any. */
  handle: RunHandle | undefined;
  /** The planning under way (cancelled by the next question or by Cancel). */
  planAbort: AbortController | undefined;
  /** Runs the user declined to let past the limit mid-stream: their view says so instead of "cancelled". */
  declined: Map<string, string>;
  /** The files attached to each run started here. */
  runFiles: ReturnType<typeof createRunFiles>;
  /** Changes the run on screen, if it is still `runId`. */
  update(runId: string, fn: (view: RunView) => RunView): void;
  /** The run could not start: its view says why. */
  failRun(runId: string, error: unknown): void;
  /** US dollars one run may spend now; undefined: no limit. */
  spendLimit(): number | undefined;
  /** Each model's past answer lengths, read once and again after a run ends or History changes. */
  answerLengths(): Promise<Map<string, AnswerLength>>;
  /** After a run ends, an import or a delete: the unfinished runs, and History's list if it is shown. */
  refreshHistory(): Promise<void>;
  /**
   * Writes a record the executor does not (a planned run, a failed planning), then reads History again. A
   * store that refuses the write (a full disk) loses the record, never the run on screen.
   */
  storeRecord(
    make: (store: RunHistoryStore) => RunRecord | undefined | Promise<RunRecord | undefined>,
  ): Promise<void>;
}

/** The shared state of the runs; `refreshUnfinished` reads the unfinished runs again (src/app/runs/unfinished.ts). */
export function createRunCore(services: RunServices, refreshUnfinished: () => Promise<void>): RunCore {
  let lengths: Promise<Map<string, AnswerLength>> | undefined;
  const core: RunCore = {
    services,
    currentRun: signal<RunView | undefined>(undefined),
    pendingReview: signal<PendingReview | undefined>(undefined),
    handle: undefined,
    planAbort: undefined,
    declined: new Map(),
    runFiles: createRunFiles(),
    update(runId, fn) {
      const view = core.currentRun.value;
      if (!view || view.id !== runId) return;
      const next = fn(view);
      const note = core.declined.get(runId);
      core.currentRun.value = note && next.phase === 'cancelled' ? { ...next, error: note } : next;
    },
    failRun(runId, error) {
      console.error('run failed to start', error);
      const message = (error as { message?: string }).message ?? String(error);
      core.update(runId, (v) => ({
        ...v,
        phase: 'failed',
        error: `The run could not start: ${message}`,
        endedAt: Date.now(),
      }));
    },
    spendLimit: () => services.spendLimitUsd?.() ?? undefined,
    answerLengths() {
      lengths ??= services
        .runStore()
        .then(loadAnswerLengths)
        .catch((error: unknown) => {
          console.warn('Past answer lengths could not be read; the estimate assumes the default.', error);
          return new Map<string, AnswerLength>();
        });
      return lengths;
    },
    async refreshHistory() {
      lengths = undefined;
      await Promise.all([refreshUnfinished(), services.historyChanged()]);
      // Read again now, while the user reads the answer: the next question's estimate (a Direct or auto
      // mode question's, on the way from Enter to its request) finds them read, not a read of every run.
      void core.answerLengths();
    },
    async storeRecord(make) {
      try {
        const store = await services.runStore();
        const record = await make(store);
        if (!record) return;
        await store.putRun(record);
      } catch (error) {
        console.warn('The run could not be stored; it stays on this page.', error);
        return;
      }
      await core.refreshHistory();
    },
  };
  return core;
}
