import type { Attachment } from '../attachments/types.ts';
import type { ProviderError } from '../providers/errors.ts';
import type { ChatTransport } from '../providers/transport.ts';
import { runFields } from '../records/attachment-store.ts';
import { type RunStore, snapshotPool } from '../records/run-store.ts';
import type { RunStatus, StepStatus, StepWait } from '../records/run-types.ts';
import {
  type ChosenBy,
  type RunRecord,
  type StoredPlanNote,
  type ThreadLink,
  threadLinkOf,
} from '../records/runs-db.ts';
import {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  type Plan,
  poolValidateOptions,
  type Step,
  type ValidateOptions,
  validatePlan,
  validateStep,
} from '../shared/plan/index.ts';
import { labelOf, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import {
  CANCEL_REASON,
  type CancelCause,
  closeQuietly,
  nextOrAbort,
  raceAbort,
  StopSignal,
} from './abort.ts';
import { type AttemptHost, answerStep } from './attempt.ts';
import { EndpointLimits } from './concurrency.ts';
import { assembleMessages } from './context.ts';
import { continuationMessages, continuedFrom } from './continuation.ts';
import { dependencies, resolveSees } from './dag.ts';
import { type Choice, chooseSubstitute, type FailoverOptions, failoverCause } from './failover.ts';
import { RunPersistence } from './persistence.ts';
import { resumedStatuses, type SentRequests, sentPerStep } from './resume.ts';
import { type RetryPolicy, retryPolicy } from './retry.ts';
import { selfCheck } from './self-check.ts';
import { instructionsSpend, totalsOf } from './spend.ts';
import { liveSpend, overSpendLimit, spendLimitMessage, unpricedNotice } from './spend-limit.ts';
import { checkStepFiles, filesOfStep, planFilesOf, stepHasImages, withStepFiles } from './step-files.ts';
import { copyStatus, finalStepIndex, queuedStatus } from './step-status.ts';
import { type FittedHistory, fitHistory, type TurnHistory } from './turn-history.ts';
import type { ExecutorEvent, Replanner, RunResult, StepEventBody } from './types.ts';

export { PARTIAL_FLUSH_MS } from './persistence.ts';

export const DEFAULT_FIRST_TOKEN_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 300_000;

export interface ExecutorOptions {
  /** The workers steps may name (`self` is the conductor and needs no entry). */
  pool: readonly WorkerSpec[];
  /** One transport for every worker, or one chosen per worker (for example the on-device `local` one). */
  transport: ChatTransport | ((worker: WorkerSpec) => ChatTransport);
  /** Called by `self` steps. Without one, a `self` step accepts the current answer. */
  conductor?: Replanner;
  /** Where every step change is written. Without one, nothing is persisted. */
  store?: RunStore;
  onEvent?: (event: ExecutorEvent) => void;
  /** Send the question as the first user turn of every step (default true). */
  includeQuestion?: boolean;
  /**
   * Per attempt: no first token within this time aborts the attempt, which counts as a retryable
   * `timeout` (default 60 s).
   */
  firstTokenTimeoutMs?: number;
  /**
   * Per step, from its start to its end over every attempt and backoff wait: when it fires the step
   * fails at once, without another attempt (default 300 s). A worker that takes the step over gets a
   * limit of its own.
   */
  stepTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * The most characters (answer and reasoning) a step keeps of one answer: past it the answer is cut, the
   * request stopped, and the step says so (default MAX_ANSWER_CHARS, 8 million).
   */
  maxAnswerChars?: number;
  /** Levels of `self` recursion (default 2). */
  maxDepth?: number;
  /** Steps per plan, the first plan and each corrective one (default 5). */
  maxSteps?: number;
  /** Steps per run, corrective ones included (default maxSteps × (maxDepth + 1)). */
  maxTotalSteps?: number;
  /**
   * Requests in flight per provider per endpoint (a base URL's origin; so per key too, a key being bound
   * to one provider at one origin), keyed by that origin or by provider id (then for each of its
   * endpoints). Default: the smallest `maxConcurrency` among the provider's workers at that endpoint. Each must be a whole number ≥ 1, else
   * `startRun` throws a RangeError naming it.
   */
  providerConcurrency?: Record<string, number>;
  /**
   * US dollars the run may spend (every request, the answer streaming so far included: `liveSpend`). Past
   * it the run stops: steps done keep their answers, the others are cancelled, and the run's error names
   * the limit and the spend. A resumed run counts from what it had spent before the resume.
   */
  spendLimitUsd?: number;
  /** Run one step at a time in index order, as the Conductor paper did (for comparison). */
  sequential?: boolean;
  /**
   * Failover: a step whose worker stays unavailable after its retries runs again, from its start, on the
   * best other worker of the pool (src/executor/failover.ts says which failures and which worker). Off
   * without it: the step fails, as it always did. A pinned step (`pin`) never fails over.
   */
  failover?: FailoverOptions;
  /**
   * In a thread's follow-up: the earlier turns, sent to every step's worker as chat history within that
   * worker's budget (src/executor/turn-history.ts). Absent: a thread's first turn, or a run of its own.
   */
  history?: TurnHistory;
  /** The thread's standing instructions: sent to every worker step with its system prompt (context.ts). */
  instructions?: string;
  /**
   * The question's attached files, by index: a step is sent only those its `files` names
   * (src/executor/step-files.ts), and a plan that gives an image to a worker that takes none is refused
   * before anything is sent.
   */
  attachments?: readonly Attachment[];
  now?: () => number;
}

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

const TERMINAL = new Set(['done', 'failed', 'cancelled']);

function isPlan(value: Plan | AsyncIterable<Step>): value is Plan {
  return typeof value === 'object' && value !== null && Array.isArray((value as Plan).steps);
}

/** What to start a run from: nothing (a new run) or a stored run being resumed. */
interface Initial {
  steps: StepStatus[];
  createdAt: number;
  plan: Plan;
}

class Run implements AttemptHost {
  readonly runId: string;
  readonly now: () => number;
  readonly policy: RetryPolicy;
  private readonly maxDepth: number;
  private readonly maxSteps: number;
  private readonly maxTotalSteps: number;
  private readonly workers = new Map<string, WorkerSpec>();
  private readonly limits: EndpointLimits;
  private readonly persistence: RunPersistence;
  private readonly runController = new AbortController();
  private readonly stepControllers = new Map<number, AbortController>();
  /**
   * Workers that stayed unavailable for a step of this run, with why: no step fails over to them, and a
   * later step of theirs goes to another worker at once when one can take it.
   */
  private readonly failedWorkers = new Map<string, { cause: ProviderError; reason: string }>();
  /** Steps whose failure came from upstream: their dependents repeat the same reason. */
  private readonly cascaded = new Set<number>();
  private readonly started = new Set<number>();
  private statuses: StepStatus[] = [];
  private steps: Step[] = [];
  private deps: number[][] = [];
  private plan: Plan;
  private planComplete = false;
  private planError: string | undefined;
  private resolvePlanComplete!: () => void;
  private readonly planCompleted = new Promise<void>((resolve) => {
    this.resolvePlanComplete = resolve;
  });
  private cancelled = false;
  /** Set when the run stopped at its spend limit: what the run says about it. */
  private spendStop: string | undefined;
  /** What a resumed run had spent before: its spend limit counts from here. */
  private spendBaseline = 0;
  private spendLimit: number | undefined;
  private abandoned = false;
  private finished = false;
  private readonly createdAt: number;
  private readonly startedAt: number;
  private resolveResult!: (result: RunResult) => void;
  readonly result = new Promise<RunResult>((resolve) => {
    this.resolveResult = resolve;
  });

  constructor(
    private readonly options: ExecutorOptions & {
      question: string;
      mode: string;
      runId: string;
      chosenBy?: ChosenBy;
      planNote?: () => StoredPlanNote | undefined;
      thread?: ThreadLink;
    },
    initial?: Initial,
  ) {
    this.runId = options.runId;
    this.now = options.now ?? Date.now;
    this.policy = retryPolicy(options.retry);
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.maxTotalSteps = options.maxTotalSteps ?? this.maxSteps * (this.maxDepth + 1);
    this.spendLimit = options.spendLimitUsd;
    for (const worker of options.pool) this.workers.set(worker.id, worker);
    this.limits = new EndpointLimits(options.pool, options.providerConcurrency);
    this.persistence = new RunPersistence(options.store, options.runId, this.now, {
      onFailed: (reason) => this.emit({ type: 'persistence-failed', reason }),
      onRestored: () => this.emit({ type: 'persistence-restored' }),
    });
    // One listener for every step, not one per step begun: a long plan whose steps wait for a provider's
    // slot would hold one each (Node warns past 10 on one signal: MaxListenersExceededWarning).
    const run = this.runController.signal;
    run.addEventListener(
      'abort',
      () => {
        for (const controller of this.stepControllers.values()) controller.abort(run.reason);
      },
      { once: true },
    );
    this.startedAt = this.now();
    this.createdAt = initial?.createdAt ?? this.startedAt;
    this.plan = initial?.plan ?? { steps: [] };
    if (initial) {
      this.statuses = initial.steps;
      // The plan's worker: the one the first takeover (if any) took the step from.
      this.steps = initial.steps.map((s) => ({
        worker: s.takeovers?.[0]?.from ?? s.worker,
        task: s.task,
        sees: s.sees,
        ...(s.files !== undefined ? { files: s.files } : {}),
        ...(s.pin ? { pin: s.pin } : {}),
      }));
      this.deps = dependencies(this.steps);
      this.spendBaseline = liveSpend(this.statuses);
    }
  }

  // ---- public controls ----

  stepStatuses(): StepStatus[] {
    return this.statuses.map(copyStatus);
  }

  cancelStep(index: number): void {
    const status = this.statuses[index];
    if (!status || TERMINAL.has(status.state)) return;
    const controller = this.stepControllers.get(index);
    if (controller) {
      controller.abort(new StopSignal('cancel-step'));
      return;
    }
    this.endStep(index, 'cancelled', CANCEL_REASON['cancel-step']);
    this.schedule();
  }

  cancel(): void {
    if (this.finished || this.cancelled) return;
    this.cancelled = true;
    this.runController.abort(new StopSignal('cancel-run'));
    this.stopSteps('cancel-run');
    this.schedule();
  }

  /** Aborts every running step with `cause` (each ends itself) and cancels every step not yet running. */
  private stopSteps(cause: CancelCause): void {
    for (const [, controller] of this.stepControllers) controller.abort(new StopSignal(cause));
    for (const status of this.statuses) {
      if (!TERMINAL.has(status.state) && !this.stepControllers.has(status.index)) {
        this.endStep(status.index, 'cancelled', CANCEL_REASON[cause]);
      }
    }
  }

  /** Stops the run once what it has spent passes its limit (checked as requests leave and answers stream). */
  setSpendLimit(usd: number | undefined): void {
    this.spendLimit = usd;
    this.checkSpend();
  }

  private checkSpend(): void {
    const limit = this.spendLimit;
    if (limit === undefined || this.spendStop || this.cancelled || this.finished) return;
    const spent = liveSpend(this.statuses) - this.spendBaseline;
    if (!overSpendLimit(spent, limit)) return;
    this.spendStop = spendLimitMessage(limit, spent);
    this.runController.abort(new StopSignal('spend-limit'));
    this.stopSteps('spend-limit');
    // Called from inside a step's event: schedule once that step's own work has moved on.
    queueMicrotask(() => this.schedule());
  }

  abandon(): void {
    if (this.finished) return;
    this.abandoned = true;
    this.persistence.stop();
    this.runController.abort(new StopSignal('abandon'));
    for (const [, controller] of this.stepControllers) controller.abort(new StopSignal('abandon'));
    this.finish();
  }

  // ---- start ----

  start(source: Plan | AsyncIterable<Step> | undefined): void {
    // The run's record and its queued steps in one transaction, not one each.
    this.persistence.batch(() => this.begin(source));
  }

  private begin(source: Plan | AsyncIterable<Step> | undefined): void {
    this.emit({
      type: 'run-started',
      limits: { maxSteps: this.maxSteps, maxDepth: this.maxDepth, maxTotalSteps: this.maxTotalSteps },
      pool: snapshotPool(this.options.pool),
    });
    this.writeRun();
    if (source === undefined) {
      // Resuming: the plan is whatever was stored. Done steps are stored as they are; the rest were reset.
      for (const status of this.statuses) {
        if (status.state === 'done') continue;
        if (status.notice) this.emitStep(status, { type: 'step-notice', notice: status.notice });
        this.writeStep(status);
      }
      this.markPlanComplete();
      this.schedule();
      return;
    }
    if (isPlan(source)) {
      const checked = validatePlan(source, this.planRules());
      if (!checked.ok) {
        this.planError = `The plan is not valid: ${checked.message}`;
        this.markPlanComplete();
        this.schedule();
        return;
      }
      this.plan = checked.plan;
      for (const step of checked.plan.steps) this.addStep(step, 0);
      this.markPlanComplete();
      // The record written above had no plan yet: a run cut off by a reload must store the plan it ran.
      this.writeRun();
      this.schedule();
      return;
    }
    void this.consume(source);
  }

  /** What every step of a plan is checked against (the first plan's and each corrective one's). */
  private planRules(): ValidateOptions {
    const { workerLabels, ...rules } = poolValidateOptions(this.options.pool, {
      maxSteps: this.maxSteps,
      allowSelf: true,
    });
    const attachments = this.options.attachments ?? [];
    if (attachments.length === 0) return rules;
    // The files' rules name workers by the user's labels: the message is the run's error, for the user.
    return { ...rules, files: planFilesOf(attachments, this.options.pool), workerLabels, labelsOnly: true };
  }

  private async consume(source: AsyncIterable<Step>): Promise<void> {
    const iterator = source[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await nextOrAbort(iterator, this.runController.signal);
        if (next.done) break;
        const index = this.steps.length;
        if (index >= this.maxSteps) {
          throw new Error(`The plan has more than ${this.maxSteps} steps; the limit is ${this.maxSteps}.`);
        }
        const checked = validateStep(next.value, index, this.planRules());
        if (!checked.ok) throw new Error(checked.message);
        this.plan = { ...this.plan, steps: [...this.plan.steps, checked.step] };
        this.addStep(checked.step, 0);
        this.schedule();
      }
      if (this.steps.length === 0) this.planError = 'The plan has no steps.';
    } catch (error) {
      if (error instanceof StopSignal) {
        closeQuietly(iterator);
      } else {
        this.planError = `The plan could not be read: ${error instanceof Error ? error.message : String(error)}`;
        // Nothing after a broken plan can be trusted to make sense: stop what is running.
        this.stopSteps('plan-error');
      }
    }
    this.markPlanComplete();
    this.writeRun();
    this.schedule();
  }

  private markPlanComplete(): void {
    this.planComplete = true;
    this.resolvePlanComplete();
  }

  private addStep(step: Step, depth: number): void {
    const index = this.steps.length;
    this.steps.push(step);
    this.deps.push(resolveSees(step.sees, index));
    const status = queuedStatus(step, index, depth, this.now());
    this.statuses.push(status);
    this.emitStep(status, { type: 'step-queued', step, depth });
    this.writeStep(status);
  }

  // ---- scheduling ----

  /** Fails steps whose inputs failed, starts every step whose inputs are done, finishes when all ended. */
  private schedule(): void {
    if (this.finished) return;
    let changed = true;
    while (changed) {
      changed = false;
      for (const status of this.statuses) {
        if (status.state !== 'queued' || this.started.has(status.index)) continue;
        const broken = (this.deps[status.index] ?? []).find((d) => {
          const s = this.statuses[d]?.state;
          return s === 'failed' || s === 'cancelled';
        });
        if (broken === undefined) continue;
        const upstream = this.statuses[broken] as StepStatus;
        const reason = this.cascaded.has(broken)
          ? (upstream.error ?? `step ${broken} did not finish`)
          : upstream.state === 'cancelled'
            ? `step ${broken} was cancelled (cancelled upstream)`
            : `step ${broken} failed: ${upstream.error ?? 'unknown error'}`;
        this.cascaded.add(status.index);
        this.endStep(status.index, upstream.state === 'cancelled' ? 'cancelled' : 'failed', reason);
        changed = true;
      }
    }
    if (!this.cancelled && !this.spendStop) {
      for (const status of this.statuses) {
        if (status.state !== 'queued' || this.started.has(status.index)) continue;
        if (!(this.deps[status.index] ?? []).every((d) => this.statuses[d]?.state === 'done')) continue;
        if (this.options.sequential) {
          const busy = this.statuses.some((s) => this.started.has(s.index) && !TERMINAL.has(s.state));
          const earlier = this.statuses.some((s) => s.index < status.index && !TERMINAL.has(s.state));
          if (busy || earlier) continue;
        }
        this.started.add(status.index);
        void this.runStep(status.index);
        if (this.options.sequential) break;
      }
    }
    const allEnded = this.statuses.every((s) => TERMINAL.has(s.state));
    if (this.planComplete && allEnded) this.finish();
  }

  private transportFor(worker: WorkerSpec): ChatTransport {
    const t = this.options.transport;
    return typeof t === 'function' ? t(worker) : t;
  }

  // ---- running one step ----

  private async runStep(index: number): Promise<void> {
    const controller = new AbortController();
    this.stepControllers.set(index, controller);
    // The run's one abort listener (the constructor's) stops every step begun; one begun after it fired stops here.
    if (this.runController.signal.aborted) controller.abort(this.runController.signal.reason);
    try {
      const step = this.steps[index] as Step;
      if (step.worker === SELF_WORKER) await this.runSelf(index, controller.signal);
      else await this.askWorker(index, controller.signal);
    } catch (error) {
      const cause = error instanceof StopSignal ? error.why : undefined;
      if (cause === 'abandon') return;
      if (
        cause === 'cancel-step' ||
        cause === 'cancel-run' ||
        cause === 'plan-error' ||
        cause === 'spend-limit'
      ) {
        this.endStep(index, 'cancelled', CANCEL_REASON[cause]);
      } else if (cause === 'step-timeout') {
        const seconds = (this.options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS) / 1000;
        this.endStep(index, 'failed', `The step took longer than its ${seconds} s limit.`);
      } else this.endStep(index, 'failed', error instanceof Error ? error.message : String(error));
    } finally {
      this.stepControllers.delete(index);
      // The steps that read this one start now; their requests wait for its write (inputsStored), the
      // run's result for every write.
      this.schedule();
    }
  }

  /**
   * Settles once every answer step `index` reads is in the store: no request of the step leaves before,
   * so a reload finds paid work done, not running. Waited on beside the request's own ledger write.
   */
  private inputsStored(index: number): Promise<void> {
    const deps = this.deps[index] ?? [];
    return Promise.all(deps.map((d) => this.persistence.stepWritten(d))).then(() => undefined);
  }

  private async askWorker(index: number, signal: AbortSignal): Promise<void> {
    const status = this.statuses[index] as StepStatus;
    // The step's worker now: the plan's, or (on resume) the one that had taken it over.
    let worker = this.workers.get(status.worker);
    if (!worker) throw new Error(`Worker "${status.worker}" is not in the pool.`);
    // A worker that already stayed unavailable in this run is not asked again while another can answer.
    const earlier = this.failedWorkers.get(worker.id);
    if (earlier && this.options.failover && !status.pin) {
      const choice = await this.substituteFor(worker, earlier.cause, index);
      if (signal.aborted) throw signal.reason;
      // Read after the worker's name on the card: "Claude failed (earlier in this run: …) → GPT took over".
      if ('worker' in choice)
        worker = this.handOver(status, worker, choice.worker, `earlier in this run: ${earlier.reason}`);
    }
    for (;;) {
      try {
        await this.answerOn(index, worker, signal);
        return;
      } catch (error) {
        worker = await this.takeOver(status, worker, error, signal);
      }
    }
  }

  /**
   * Sends the step to `worker` (within its endpoint's request slots) until it answers, then ends it done
   * while it still holds its slot (so no step counts as running beside the next one), or gives up.
   */
  private async answerOn(index: number, worker: WorkerSpec, signal: AbortSignal): Promise<void> {
    const status = this.statuses[index] as StepStatus;
    const { endpoint, semaphore } = this.limits.for(worker);
    // The limit counts only what it can price: said on the step, not passed over in silence.
    if (this.spendLimit !== undefined && !worker.price && !status.notice) {
      status.notice = unpricedNotice(labelOf(worker), this.spendLimit);
      this.emitStep(status, { type: 'step-notice', notice: status.notice });
    }
    if (semaphore.full) this.setWait(status, { kind: 'slot', endpoint, limit: semaphore.limit });
    await semaphore.acquire(signal);
    try {
      const history = this.historyFor(worker);
      if (history.history) status.history = history.history;
      else delete status.history;
      // Said on the step card: large instructions are paid for in every step.
      const instructions = this.options.instructions?.trim();
      if (instructions) status.instructions = instructionsSpend(worker, instructions);
      else delete status.instructions;
      const step = this.steps[index] as Step;
      const attachments = this.options.attachments ?? [];
      // Refused before the request: the worker (a substitute, or one changed since planning) takes no images.
      checkStepFiles(step, index, worker, attachments);
      const messages = withStepFiles(
        assembleMessages({
          question: this.options.question,
          includeQuestion: this.options.includeQuestion ?? true,
          systemPrompt: worker.systemPrompt,
          ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
          steps: this.steps,
          answers: this.statuses.map((s) => (s.state === 'done' ? s.text : undefined)),
          index,
          history: history.messages,
        }),
        filesOfStep(step, attachments),
      );
      // Continuing a cut answer (continuation.ts): the same messages, the answer so far, a request for the rest.
      const prefix = continuedFrom(status);
      await answerStep(this, {
        ...(prefix !== undefined ? { prefix } : {}),
        status,
        worker,
        transport: this.transportFor(worker),
        messages: continuationMessages(messages, prefix),
        signal,
        firstTokenTimeoutMs: this.options.firstTokenTimeoutMs ?? DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
        stepTimeoutMs: this.options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
        ready: this.inputsStored(index),
        ...(this.options.maxAnswerChars !== undefined ? { maxAnswerChars: this.options.maxAnswerChars } : {}),
        // Known only once the plan is complete: a streamed plan may still add the step that reads this one.
        ...(this.planComplete && index === finalStepIndex(this.statuses) ? { final: true } : {}),
        takenOverOnStall: async (error) =>
          Boolean(this.options.failover) &&
          !status.pin &&
          'worker' in (await this.substituteFor(worker, error, index)),
      });
      this.endStep(index, 'done');
    } finally {
      semaphore.release();
    }
  }

  /**
   * After `worker`'s attempts ended with `error`: the worker that takes the step over, or a throw of the
   * error the step fails with: `error` itself when it is no outage or failover is off, else with why no
   * other worker could take over.
   */
  private async takeOver(
    status: StepStatus,
    worker: WorkerSpec,
    error: unknown,
    signal: AbortSignal,
  ): Promise<WorkerSpec> {
    const cause = this.options.failover && !signal.aborted ? failoverCause(error) : undefined;
    if (!cause) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const failed = /[.!?]$/.test(reason) ? reason : `${reason}.`;
    const name = labelOf(worker);
    if (status.pin) throw new Error(`${failed} The step is pinned to ${name}, so no other worker took over.`);
    this.failedWorkers.set(worker.id, { cause, reason });
    const choice = await this.substituteFor(worker, cause, status.index);
    if (signal.aborted) throw signal.reason;
    if ('none' in choice) throw new Error(`${failed} ${choice.none}`);
    return this.handOver(status, worker, choice.worker, reason);
  }

  /** The best other worker for a step `worker` failed with `cause`, or why there is none. */
  private substituteFor(worker: WorkerSpec, cause: ProviderError, index?: number): Promise<Choice> {
    const failover = this.options.failover ?? {};
    const given = failover.allow;
    // A step with an image can be taken over only by a worker that takes images.
    const step = index !== undefined ? this.steps[index] : undefined;
    const needsVision = step !== undefined && stepHasImages(step, this.options.attachments ?? []);
    const allow =
      given || needsVision
        ? (w: WorkerSpec, totals: ReturnType<typeof totalsOf>) =>
            needsVision && w.vision !== true
              ? 'it takes no images, and the step sends one'
              : given?.(w, totals)
        : undefined;
    return chooseSubstitute({
      failed: worker,
      cause,
      pool: this.options.pool,
      failedInRun: new Set(this.failedWorkers.keys()),
      hasKey: failover.hasKey ?? (async () => true),
      ...(allow ? { allow: (w: WorkerSpec) => allow(w, totalsOf(this.statuses)) } : {}),
    });
  }

  /** Gives the step to `to`: the takeover is on the step, said and written. */
  private handOver(status: StepStatus, from: WorkerSpec, to: WorkerSpec, reason: string): WorkerSpec {
    const takeover = { from: from.id, to: to.id, reason, at: this.now() };
    status.takeovers = [...(status.takeovers ?? []), takeover];
    status.worker = to.id;
    status.error = undefined; // the failure is in the takeover now; the substitute starts clean
    this.emitStep(status, { type: 'step-takeover', takeover });
    this.writeStep(status);
    return to;
  }

  setWait(status: StepStatus, wait: StepWait | undefined): void {
    if (wait === undefined && status.wait === undefined) return;
    if (wait) status.wait = wait;
    else delete status.wait;
    this.emitStep(status, { type: 'step-waiting', wait });
  }

  /** A `self` step: ask the conductor for corrective steps, or accept. */
  private async runSelf(index: number, signal: AbortSignal): Promise<void> {
    const status = this.statuses[index] as StepStatus;
    status.state = 'running';
    status.attempts = 1;
    status.timings.startedAt = this.now();
    this.emitStep(status, { type: 'step-started', attempt: 1 });
    this.writeStep(status);
    // Corrective steps are appended after the whole plan, so wait until the plan is complete.
    await raceAbort(this.planCompleted, signal);
    await raceAbort(this.inputsStored(index), signal);
    const outcome = await selfCheck({
      index,
      depth: status.depth,
      question: this.options.question,
      steps: this.steps,
      statuses: this.statuses,
      deps: this.deps,
      conductor: this.options.conductor,
      maxDepth: this.maxDepth,
      maxTotalSteps: this.maxTotalSteps,
      validation: this.planRules(),
      signal,
    });
    if (outcome.add) {
      const from = this.steps.length;
      const depth = status.depth + 1;
      for (const step of outcome.add) this.addStep(step, depth);
      this.emit({ type: 'steps-added', from, steps: outcome.add, depth });
      this.writeRun();
    }
    this.accept(index, outcome.note);
  }

  private accept(index: number, note: string): void {
    const status = this.statuses[index] as StepStatus;
    status.text = note;
    this.endStep(index, 'done');
  }

  private endStep(index: number, state: 'done' | 'failed' | 'cancelled', reason?: string): void {
    const status = this.statuses[index];
    if (!status || TERMINAL.has(status.state)) return;
    status.state = state;
    status.timings.endedAt = this.now();
    this.setWait(status, undefined);
    if (state === 'done') {
      status.error = undefined;
      this.emitStep(status, {
        type: 'step-done',
        answer: status.text,
        usage: status.usage,
        cost: status.cost,
      });
    } else {
      status.error = reason;
      this.emitStep(status, {
        type: state === 'failed' ? 'step-failed' : 'step-cancelled',
        reason: reason ?? '',
      });
    }
    this.writeStep(status);
  }

  // ---- result ----

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const result = this.buildResult();
    if (!this.abandoned) {
      this.writeRun(result);
      this.emit({ type: 'run-done', result });
    }
    void this.persistence.settled().then(() => this.resolveResult(result));
  }

  private buildResult(): RunResult {
    const finalStep = finalStepIndex(this.statuses);
    const final = finalStep === undefined ? undefined : this.statuses[finalStep];
    const answer = final?.state === 'done' ? final.text : undefined;
    const failed = this.statuses
      .filter((s) => s.state === 'failed' || s.state === 'cancelled')
      .map((s) => ({ index: s.index, reason: s.error ?? s.state }));
    let status: RunStatus;
    if (this.cancelled || this.abandoned) status = 'cancelled';
    else if (this.planError || answer === undefined) status = 'failed';
    else status = failed.length === 0 ? 'done' : 'partial';
    const result: RunResult = {
      runId: this.runId,
      status,
      steps: this.stepStatuses(),
      failed,
      totals: totalsOf(this.statuses),
      startedAt: this.startedAt,
      endedAt: this.now(),
    };
    if (answer !== undefined) result.answer = answer;
    if (finalStep !== undefined) result.finalStep = finalStep;
    // A limit passed by the very last answer stopped nothing: the run is simply done.
    const spendStop = failed.length > 0 ? this.spendStop : undefined;
    const error = this.planError ?? spendStop ?? (this.cancelled ? CANCEL_REASON['cancel-run'] : undefined);
    if (error) result.error = error;
    return result;
  }

  // ---- events and persistence ----

  private emit(event: ExecutorEvent): void {
    if (this.abandoned) return;
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      console.error('Executor event handler failed:', error);
    }
  }

  /** Says a change to one step, with a copy of the step as it now is. */
  emitStep(status: StepStatus, event: StepEventBody): void {
    if (this.abandoned) return;
    this.emit({ ...event, index: status.index, status: copyStatus(status) } as ExecutorEvent);
    if (event.type === 'step-request' || event.type === 'step-delta') this.checkSpend();
  }

  private writeRun(result?: RunResult): void {
    if (!this.options.store || this.abandoned) return;
    this.persistence.writeRun(() => this.runRecord(result));
  }

  /** Each worker's share of the thread's earlier turns: the same for every step it answers in this run. */
  private readonly histories = new Map<string, FittedHistory>();
  private historyFor(worker: WorkerSpec): FittedHistory {
    const history = this.options.history;
    if (!history || history.turns.length === 0) return { messages: [] };
    let fitted = this.histories.get(worker.id);
    if (!fitted) {
      fitted = fitHistory(history.turns, history.budgetFor(worker));
      this.histories.set(worker.id, fitted);
    }
    return fitted;
  }

  private runRecord(result?: RunResult): RunRecord {
    const record: RunRecord = {
      id: this.runId,
      question: this.options.question,
      mode: this.options.mode,
      pool: snapshotPool(this.options.pool),
      plan: this.plan,
      planComplete: this.planComplete,
      includeQuestion: this.options.includeQuestion ?? true,
      status: result?.status ?? 'running',
      createdAt: this.createdAt,
      updatedAt: this.now(),
      totals: result?.totals ?? totalsOf(this.statuses),
    };
    if (result?.answer !== undefined) record.answer = result.answer;
    if (result?.error !== undefined) record.error = result.error;
    if (this.options.chosenBy) record.chosenBy = this.options.chosenBy;
    const note = this.options.planNote?.();
    if (note) record.planNote = note;
    if (this.options.thread) Object.assign(record, this.options.thread);
    Object.assign(record, runFields(this.options.attachments));
    return record;
  }

  writeStep(status: StepStatus): void {
    if (!this.abandoned) this.persistence.writeStep(status);
  }

  writePartial(status: StepStatus): void {
    if (!this.abandoned) this.persistence.writePartial(status);
  }
}

function handleOf(run: Run): RunHandle {
  return {
    runId: run.runId,
    result: run.result,
    steps: () => run.stepStatuses(),
    cancelStep: (index) => run.cancelStep(index),
    cancel: () => run.cancel(),
    setSpendLimit: (usd) => run.setSpendLimit(usd),
    abandon: () => run.abandon(),
  };
}

/** Starts a run: steps begin as soon as the steps they see are done. */
export function startRun(options: RunOptions): RunHandle {
  const run = new Run({
    ...options,
    runId: options.runId ?? crypto.randomUUID(),
    mode: options.mode ?? 'conductor',
  });
  run.start(options.plan);
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
  run.start(undefined);
  return handleOf(run);
}
