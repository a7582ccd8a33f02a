import type { RunStore } from '../records/run-store.ts';
import type { StepStatus } from '../records/run-types.ts';
import type { RunRecord, StepRecord } from '../records/runs-db.ts';
import { storageErrorText } from '../shared/storage-error.ts';

/**
 * Partial answers are written to the store at most this often (and always when a step ends). Each write
 * clones the step's whole record into IndexedDB (a transaction, a clone, a message to the database, a task
 * for its answer): at every 250 ms they were ~25 writes during a 5-step run of 300-token answers. A step
 * cut off by a reload is run again from its start in any case; what the partial text keeps is what was
 * shown of it.
 */
export const PARTIAL_FLUSH_MS = 1000;

/**
 * And no faster than this many characters of a step's text a second: each partial write stores the whole
 * text so far, so at a fixed interval the work grew with the answer's length times its time (a 5 MB
 * answer was cloned into the store 40 times). With the wait growing with the text, what a step writes in
 * all stays within a small multiple of its answer.
 */
export const PARTIAL_FLUSH_CHARS_PER_S = 1_000_000;

/** How long after its last write a running step's text may be written again. */
function partialFlushDelay(status: StepStatus): number {
  const chars = status.text.length + (status.reasoning?.length ?? 0);
  return Math.max(PARTIAL_FLUSH_MS, (chars / PARTIAL_FLUSH_CHARS_PER_S) * 1000);
}

/**
 * While writes fail, what could not be written is tried again after this long, doubling up to
 * RETRY_UNSAVED_MAX_MS: an answer is stored once space is freed even when nothing else writes (the run
 * has ended), and it stays in memory until then.
 */
export const RETRY_UNSAVED_MS = 2000;
export const RETRY_UNSAVED_MAX_MS = 30_000;

export interface PersistenceEvents {
  /** The first write that failed after the last success (or ever): the run is not being saved. */
  onFailed(reason: string): void;
  /** Every write that had failed has since been written again. */
  onRestored(): void;
}

/**
 * Writes one run's record and its steps as they change: state changes at once, streamed text at most
 * every PARTIAL_FLUSH_MS. A write that fails (a full disk) is reported once, and what it would have
 * written is kept in memory and written again with the next write that succeeds, or on its own after
 * RETRY_UNSAVED_MS (backing off), so a step that was done in memory is never left stored as unfinished
 * once there is room. Meanwhile leaving the page asks first (`beforeunload`): the paid answers would go.
 */
export class RunPersistence {
  private readonly flushTimers = new Map<number, ReturnType<typeof setTimeout>>();
  private readonly lastFlush = new Map<number, number>();
  private readonly pending = new Set<Promise<void>>();
  /** The latest write of each step, to wait on before anything depends on that step. */
  private readonly latestStepWrite = new Map<number, Promise<void>>();
  /** Live step objects (and the run record maker) whose last write failed. */
  private readonly unsavedSteps = new Map<number, StepStatus>();
  private unsavedRun: (() => RunRecord) | undefined;
  /**
   * How many writes of each step (and of the run) have begun: a write that lands after a later one of
   * the same record has failed must not count that record as saved (the later one is what was lost).
   */
  private readonly stepWrites = new Map<number, number>();
  private runWrites = 0;
  private failing = false;
  private stopped = false;
  /** While `batch` runs: the latest record of the run and of each step written, and their one write. */
  private batching:
    | {
        run?: RunRecord;
        steps: Map<number, StepRecord>;
        written: Promise<void>;
        settle: (w: Promise<void>) => void;
      }
    | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryDelay = RETRY_UNSAVED_MS;
  private readonly holdPage = (event: Event) => event.preventDefault();

  constructor(
    private readonly store: RunStore | undefined,
    private readonly runId: string,
    private readonly now: () => number,
    private readonly events: PersistenceEvents,
  ) {}

  /** Whether the last write failed and nothing has been written since. */
  get isFailing(): boolean {
    return this.failing;
  }

  /** No more writes (the page is going away, or the run was abandoned). */
  stop(): void {
    this.stopped = true;
    for (const timer of this.flushTimers.values()) clearTimeout(timer);
    this.flushTimers.clear();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.letPageGo();
  }

  /**
   * Runs `writes` (calls of writeRun and writeStep) and stores what they wrote in one transaction, begun
   * before this returns, so it is ordered before any transaction begun after it. A run's start writes its
   * record twice and every queued step: as separate transactions they kept the database busy just as the
   * first requests' ledger entries were written.
   */
  batch(writes: () => void): void {
    const store = this.store;
    if (!store || this.stopped || this.batching) {
      writes();
      return;
    }
    let settle!: (write: Promise<void>) => void;
    const written = new Promise<void>((resolve, reject) => {
      settle = (write) => void write.then(resolve, reject);
    });
    const batching: NonNullable<RunPersistence['batching']> = { steps: new Map(), written, settle };
    this.batching = batching;
    try {
      writes();
    } finally {
      this.batching = undefined;
      const steps = [...batching.steps.values()];
      const run = batching.run;
      batching.settle(run || steps.length > 0 ? store.putRunAndSteps(run, steps) : Promise.resolve());
    }
  }

  /** `record()` is called now and again when a failed write is retried, so a retry writes the latest. */
  writeRun(record: () => RunRecord): void {
    const store = this.store;
    if (!store || this.stopped) return;
    const write = ++this.runWrites;
    this.track(
      this.batching ? this.batchRun(record()) : store.putRun(record()),
      () => {
        if (write === this.runWrites) this.unsavedRun = undefined;
      },
      () => {
        this.unsavedRun = record;
      },
    );
  }

  /** Writes a step now (state changes), cancelling any throttled partial write. */
  writeStep(status: StepStatus): void {
    const store = this.store;
    if (!store || this.stopped) return;
    const timer = this.flushTimers.get(status.index);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.flushTimers.delete(status.index);
    }
    this.lastFlush.set(status.index, this.now());
    const seq = (this.stepWrites.get(status.index) ?? 0) + 1;
    this.stepWrites.set(status.index, seq);
    const record = this.recordOf(status);
    const write = this.track(
      this.batching ? this.batchStep(record) : store.putStep(record),
      () => {
        if (this.stepWrites.get(status.index) === seq && this.unsavedSteps.get(status.index) === status)
          this.unsavedSteps.delete(status.index);
      },
      () => {
        this.unsavedSteps.set(status.index, status);
      },
    );
    this.latestStepWrite.set(status.index, write);
  }

  /**
   * Writes partial text at most every PARTIAL_FLUSH_MS (longer for a long text: PARTIAL_FLUSH_CHARS_PER_S),
   * the latest text always following within that time.
   */
  writePartial(status: StepStatus): void {
    if (!this.store || this.stopped || this.flushTimers.has(status.index)) return;
    const since = this.now() - (this.lastFlush.get(status.index) ?? 0);
    const delay = partialFlushDelay(status);
    if (since >= delay) {
      this.writeStep(status);
      return;
    }
    const timer = setTimeout(() => {
      this.flushTimers.delete(status.index);
      if (status.state === 'running') this.writeStep(status);
    }, delay - since);
    this.flushTimers.set(status.index, timer);
  }

  /** Settles when the latest write of step `index` has (it never rejects). */
  stepWritten(index: number): Promise<void> {
    return this.latestStepWrite.get(index) ?? Promise.resolve();
  }

  /** Settles when every write begun so far has. */
  settled(): Promise<void> {
    return Promise.allSettled([...this.pending]).then(() => undefined);
  }

  /** In a batch, the run's record to write (the latest wins) and the batch's write. */
  private batchRun(record: RunRecord): Promise<void> {
    const batching = this.batching!;
    batching.run = record;
    return batching.written;
  }

  private batchStep(record: StepRecord): Promise<void> {
    const batching = this.batching!;
    batching.steps.set(record.index, record);
    return batching.written;
  }

  private recordOf(status: StepStatus): StepRecord {
    const record = { ...status, timings: { ...status.timings }, runId: this.runId };
    // What a step waits on is live state: stored, it would be stale on the next read.
    delete record.wait;
    return record;
  }

  private track(write: Promise<void>, onOk: () => void, onError: () => void): Promise<void> {
    const guarded = write.then(
      () => {
        onOk();
        this.afterSuccess();
      },
      (error: unknown) => {
        onError();
        // The database was closed (the page is going away, or a test is done): nothing to write into.
        if (error instanceof Error && error.name === 'InvalidStateError') {
          this.stop();
          return;
        }
        if (!this.failing) {
          this.failing = true;
          this.holdPageOpen();
          this.events.onFailed(storageErrorText(error));
        }
        this.retryLater();
      },
    );
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }

  /** A write worked: the disk has room again, so write what could not be written before. */
  private afterSuccess(): void {
    if (!this.failing || this.stopped) return;
    if (this.unsavedSteps.size === 0 && !this.unsavedRun) {
      this.failing = false;
      this.retryDelay = RETRY_UNSAVED_MS;
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.letPageGo();
      this.events.onRestored();
      return;
    }
    this.writeUnsaved();
  }

  /** Writes again what could not be written (each write that fails keeps it unsaved). */
  private writeUnsaved(): void {
    const steps = [...this.unsavedSteps.values()];
    const run = this.unsavedRun;
    this.unsavedSteps.clear();
    this.unsavedRun = undefined;
    for (const status of steps) this.writeStep(status);
    if (run) this.writeRun(run);
  }

  /** Tries the unsaved writes again after a while, however the run goes on: space may be freed. */
  private retryLater(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.retryDelay = Math.min(RETRY_UNSAVED_MAX_MS, this.retryDelay * 2);
      if (!this.stopped && this.failing) this.writeUnsaved();
    }, this.retryDelay);
  }

  /** While answers are only in memory, closing or reloading the page asks first. */
  private holdPageOpen(): void {
    if (typeof window !== 'undefined') window.addEventListener('beforeunload', this.holdPage);
  }

  private letPageGo(): void {
    if (typeof window !== 'undefined') window.removeEventListener('beforeunload', this.holdPage);
  }
}
