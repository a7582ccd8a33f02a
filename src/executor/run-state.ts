import { runFields } from '../records/attachment-store.ts';
import { snapshotPool } from '../records/run-store.ts';
import type { StepStatus, StepWait } from '../records/run-types.ts';
import type { RunRecord } from '../records/runs-db.ts';
import {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  type Plan,
  poolValidateOptions,
  type Step,
  type ValidateOptions,
} from '../shared/plan/index.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { AttemptHost } from './attempt.ts';
import { EndpointLimits } from './concurrency.ts';
import { dependencies, resolveSees } from './dag.ts';
import { RunPersistence } from './persistence.ts';
import { type RetryPolicy, retryPolicy } from './retry.ts';
import type { RunSettings } from './run-options.ts';
import { totalsOf } from './spend.ts';
import { liveSpend } from './spend-limit.ts';
import { planFilesOf } from './step-files.ts';
import { copyStatus, queuedStatus } from './step-status.ts';
import type { ExecutorEvent, RunResult, StepEventBody } from './types.ts';

/**
 * What every part of a run reads and writes: its plan and steps, how far it got, and where each change is
 * said (events) and written (the store). The parts (plan-intake, scheduling, step-dispatch, self-step,
 * stopping) act on it; `Run` (executor.ts) joins them through the three hooks below.
 */
export abstract class RunState implements AttemptHost {
  readonly runId: string;
  readonly now: () => number;
  readonly policy: RetryPolicy;
  readonly maxDepth: number;
  readonly maxSteps: number;
  readonly maxTotalSteps: number;
  readonly workers = new Map<string, WorkerSpec>();
  readonly limits: EndpointLimits;
  readonly persistence: RunPersistence;
  readonly runController = new AbortController();
  readonly stepControllers = new Map<number, AbortController>();
  readonly statuses: StepStatus[];
  readonly steps: Step[] = [];
  readonly deps: number[][] = [];
  plan: Plan;
  planComplete = false;
  planError: string | undefined;
  private resolvePlanComplete!: () => void;
  /** Settles once the plan has all its steps (a streamed plan's last one read, or its error). */
  readonly planCompleted = new Promise<void>((resolve) => {
    this.resolvePlanComplete = resolve;
  });
  cancelled = false;
  /** Set when the run stopped at its spend limit: what the run says about it. */
  spendStop: string | undefined;
  /** What a resumed run had spent before: its spend limit counts from here. */
  readonly spendBaseline: number = 0;
  spendLimit: number | undefined;
  abandoned = false;
  finished = false;
  readonly createdAt: number;
  readonly startedAt: number;
  resolveResult!: (result: RunResult) => void;
  readonly result = new Promise<RunResult>((resolve) => {
    this.resolveResult = resolve;
  });

  constructor(
    readonly options: RunSettings,
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
    this.statuses = initial?.steps ?? [];
    if (initial) {
      // The plan's worker: the one the first takeover (if any) took the step from.
      for (const s of initial.steps) {
        this.steps.push({
          worker: s.takeovers?.[0]?.from ?? s.worker,
          task: s.task,
          sees: s.sees,
          ...(s.files !== undefined ? { files: s.files } : {}),
          ...(s.pin ? { pin: s.pin } : {}),
        });
      }
      this.deps.push(...dependencies(this.steps));
      this.spendBaseline = liveSpend(this.statuses);
    }
  }

  /** Fails steps whose inputs failed, starts every step whose inputs are done, finishes when all ended. */
  abstract schedule(): void;
  /** Stops the run once what it has spent passes its limit (checked as requests leave and answers stream). */
  abstract checkSpend(): void;
  /** Ends the run: its result is written, said, and settled once every write is in. */
  abstract finish(): void;

  stepStatuses(): StepStatus[] {
    return this.statuses.map(copyStatus);
  }

  /** What every step of a plan is checked against (the first plan's and each corrective one's). */
  planRules(): ValidateOptions {
    const { workerLabels, ...rules } = poolValidateOptions(this.options.pool, {
      maxSteps: this.maxSteps,
      allowSelf: true,
    });
    const attachments = this.options.attachments ?? [];
    if (attachments.length === 0) return rules;
    // The files' rules name workers by the user's labels: the message is the run's error, for the user.
    return { ...rules, files: planFilesOf(attachments, this.options.pool), workerLabels, labelsOnly: true };
  }

  markPlanComplete(): void {
    this.planComplete = true;
    this.resolvePlanComplete();
  }

  addStep(step: Step, depth: number): void {
    const index = this.steps.length;
    this.steps.push(step);
    this.deps.push(resolveSees(step.sees, index));
    const status = queuedStatus(step, index, depth, this.now());
    this.statuses.push(status);
    this.emitStep(status, { type: 'step-queued', step, depth });
    this.writeStep(status);
  }

  /**
   * Settles once every answer step `index` reads is in the store: no request of the step leaves before,
   * so a reload finds paid work done, not running. Waited on beside the request's own ledger write.
   */
  inputsStored(index: number): Promise<void> {
    const deps = this.deps[index] ?? [];
    return Promise.all(deps.map((d) => this.persistence.stepWritten(d))).then(() => undefined);
  }

  setWait(status: StepStatus, wait: StepWait | undefined): void {
    if (wait === undefined && status.wait === undefined) return;
    if (wait) status.wait = wait;
    else delete status.wait;
    this.emitStep(status, { type: 'step-waiting', wait });
  }

  endStep(index: number, state: 'done' | 'failed' | 'cancelled', reason?: string): void {
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

  // ---- events and persistence ----

  emit(event: ExecutorEvent): void {
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

  writeRun(result?: RunResult): void {
    if (!this.options.store || this.abandoned) return;
    this.persistence.writeRun(() => this.runRecord(result));
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

/** The states a step ends in: it changes no more. */
export const TERMINAL = new Set(['done', 'failed', 'cancelled']);

/** What to start a run from: nothing (a new run) or a stored run being resumed. */
export interface Initial {
  steps: StepStatus[];
  createdAt: number;
  plan: Plan;
}
