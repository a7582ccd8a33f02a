import type { RunStore } from '../records/run-store.ts';
import type { StepStatus } from '../records/run-types.ts';
import { type ChosenBy, type StoredPlanNote, type ThreadLink, threadLinkOf } from '../records/runs-db.ts';
import type { Plan, Step } from '../shared/plan/index.ts';
import { start } from './plan-intake.ts';
import { resumedStatuses, type SentRequests, sentPerStep } from './resume.ts';
import type { ExecutorOptions } from './run-options.ts';
import { runResultOf } from './run-result.ts';
import { RunState } from './run-state.ts';
import { Scheduler } from './scheduling.ts';
import { StepDispatch } from './step-dispatch.ts';
import { abandon, cancel, cancelStep, checkSpend, setSpendLimit } from './stopping.ts';
import type { RunResult } from './types.ts';

export { PARTIAL_FLUSH_MS } from './persistence.ts';
export {
  DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
  DEFAULT_STEP_TIMEOUT_MS,
  type ExecutorOptions,
} from './run-options.ts';

export interface RunOptions extends ExecutorOptions {
  runId?: string;
  question: string;
  /** Stored with the run ('conductor', 'router', ...). Default 'conductor'. */
  mode?: string;
  /** Auto mode's choice, stored with the run. */
  chosenBy?: ChosenBy;
  /**
   * The conductor's note on its plan, stored with the run: read at each write, as a streamed plan's note is
   * known only once the plan is written, after the run has started.
   */
  planNote?: () => StoredPlanNote | undefined;
  /** The run's thread and turn, stored with it. Absent: the run is a thread of its own (one turn). */
  thread?: ThreadLink;
  /** A whole plan, or steps as the incremental parser emits them: step 0 may start before step 2 exists. */
  plan: Plan | AsyncIterable<Step>;
}

export interface ResumeOptions extends Partial<ExecutorOptions> {
  store: RunStore;
  runId: string;
  transport: ExecutorOptions['transport'];
  /**
   * The egress ledger: a step not stored as done that has sent requests there had its answer paid for
   * and lost (a write failed); running it again pays again, and its status says so (`notice`).
   */
  ledger?: SentRequests;
}

export interface RunHandle {
  runId: string;
  /** Settles when every step has ended; never rejects. */
  result: Promise<RunResult>;
  /** Current state of every step known so far. */
  steps(): StepStatus[];
  /** Cancels one step (queued or running); the steps that depend on it are cancelled with it. */
  cancelStep(index: number): void;
  /** Cancels the whole run. */
  cancel(): void;
  /**
   * Changes the run's spend limit from now on (the user agreed to a dearer plan); undefined is none. A run
   * already stopped at its limit stays stopped.
   */
  setSpendLimit(usd: number | undefined): void;
  /**
   * Stops at once without writing anything more, as a page reload would (the stored run stays
   * `running`, so `findUnfinished` offers it for resume).
   */
  abandon(): void;
}

/**
 * One run: its state (run-state.ts) with the parts that act on it joined. The plan comes in through
 * plan-intake.ts, the scheduler starts each step whose inputs are done, step-dispatch.ts runs it (and
 * self-step.ts a `self` step), and stopping.ts ends it early.
 */
class Run extends RunState {
  private readonly dispatch = new StepDispatch(this);
  private readonly scheduler = new Scheduler(this, (index) => void this.dispatch.runStep(index));

  schedule(): void {
    this.scheduler.schedule();
  }

  checkSpend(): void {
    checkSpend(this);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const result = runResultOf(this);
    if (!this.abandoned) {
      this.writeRun(result);
      this.emit({ type: 'run-done', result });
    }
    void this.persistence.settled().then(() => this.resolveResult(result));
  }
}

function handleOf(run: Run): RunHandle {
  return {
    runId: run.runId,
    result: run.result,
    steps: () => run.stepStatuses(),
    cancelStep: (index) => cancelStep(run, index),
    cancel: () => cancel(run),
    setSpendLimit: (usd) => setSpendLimit(run, usd),
    abandon: () => abandon(run),
  };
}

/** Starts a run: steps begin as soon as the steps they see are done. */
export function startRun(options: RunOptions): RunHandle {
  const run = new Run({
    ...options,
    runId: options.runId ?? crypto.randomUUID(),
    mode: options.mode ?? 'conductor',
  });
  start(run, options.plan);
  return handleOf(run);
}

/**
 * Resumes a stored run: done steps keep their answers (and are context for the rest); every other step
 * runs again from the start. A plan that was still streaming when the run stopped is run as far as it
 * was stored.
 */
export async function resumeRun(options: ResumeOptions): Promise<RunHandle> {
  const stored = await options.store.getRun(options.runId);
  if (!stored) throw new Error(`There is no stored run ${options.runId}.`);
  const { run: record, steps } = stored;
  const pool = options.pool ?? record.pool;
  const statuses = resumedStatuses(steps, pool, await sentPerStep(options.ledger, record.id));
  const run = new Run(
    {
      includeQuestion: record.includeQuestion,
      ...options,
      pool,
      question: record.question,
      mode: record.mode,
      ...(record.chosenBy ? { chosenBy: record.chosenBy } : {}),
      ...(record.planNote ? { planNote: () => record.planNote } : {}),
      ...(record.threadId !== undefined ? { thread: threadLinkOf(record) } : {}),
      runId: record.id,
    },
    { steps: statuses, createdAt: record.createdAt, plan: record.plan },
  );
  start(run, undefined);
  return handleOf(run);
}
