/**
 * The bench's state and actions, outside the screen that shows them: its store, the benches stored there,
 * starting one (after validating the form), resuming an interrupted one, showing and comparing results.
 * src/ui/bench/BenchScreen.tsx keeps only the form's fields.
 */
import { signal } from '@preact/signals';
import {
  type BenchController,
  type BenchItemResult,
  type BenchProgress,
  runBench,
} from '../evaluation/bench-runner.ts';
import type { BenchRunRecord, BenchStore } from '../evaluation/bench-store.ts';
import type { CodeRunner } from '../evaluation/score.ts';
import { missingWorkers, type Planner, type Strategy } from '../evaluation/strategies.ts';
import type { Task } from '../evaluation/taskset.ts';
import { exportTrajectories } from '../evaluation/trajectories.ts';
import type { FailoverOptions } from '../executor/failover.ts';
import type { Outcome } from '../learning/outcome.ts';
import type { WorkerSpec } from '../pool/types.ts';
import type { ChatTransport } from '../providers/transport.ts';

/** A bench run and its results, as a results panel shows it. */
export interface ShownBench {
  run: BenchRunRecord;
  results: BenchItemResult[];
}

/** What a bench runs with: the app's pool, its transports, and the conductor when one is loaded. */
export interface BenchEnvironment {
  pool: readonly WorkerSpec[];
  transport: ChatTransport | ((worker: WorkerSpec) => ChatTransport);
  planner?: Planner;
}

/** The "New bench" form as the user filled it in (numbers as typed). */
export interface BenchForm {
  name: string;
  tasks: readonly Task[];
  strategies: readonly Strategy[];
  concurrency: string;
  spendCap: string;
}

export const UNFINISHED_BENCH: readonly BenchRunRecord['state'][] = ['running', 'paused'];

export function defaultBenchName(): string {
  return `Bench ${new Date().toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}`;
}

/** Stored workers, refreshed from the current pool where the id still exists (base URL or price may have changed). */
export function currentWorkers(stored: readonly WorkerSpec[], pool: readonly WorkerSpec[]): WorkerSpec[] {
  return stored.map((w) => pool.find((p) => p.id === w.id) ?? w);
}

/** The bench record the form describes, or what is wrong with the form (the first problem, in form order). */
export function benchFromForm(
  form: BenchForm,
  env: Pick<BenchEnvironment, 'pool' | 'planner'>,
  now: number = Date.now(),
): { ok: true; record: BenchRunRecord } | { ok: false; problem: string } {
  const problem = (text: string) => ({ ok: false as const, problem: text });
  if (form.tasks.length === 0) return problem('Choose a task set with at least one task.');
  if (form.strategies.length === 0) return problem('Add at least one strategy.');
  const missing = [...new Set(form.strategies.flatMap((s) => missingWorkers(s.config, env.pool)))];
  if (missing.length) return problem(`These workers are not in the pool: ${missing.join(', ')}.`);
  if (
    !env.planner &&
    form.strategies.some((s) => s.config.kind === 'router' || s.config.kind === 'conductor')
  )
    return problem('The router and conductor strategies need the on-device conductor.');
  const limit = Math.round(Number(form.concurrency));
  if (!(limit >= 1 && limit <= 16)) return problem('Concurrency must be a whole number from 1 to 16.');
  const cap = form.spendCap.trim() === '' ? undefined : Number(form.spendCap);
  if (cap !== undefined && !(cap >= 0))
    return problem('The spend cap must be a number of dollars (0 or more), or empty.');
  return {
    ok: true,
    record: {
      id: crypto.randomUUID(),
      name: form.name.trim() || defaultBenchName(),
      createdAt: now,
      updatedAt: now,
      tasks: [...form.tasks],
      strategies: [...form.strategies],
      // The whole pool, as a conductor would see it; worker specs carry no keys (egress attaches them by origin).
      pool: [...env.pool],
      concurrency: limit,
      ...(cap !== undefined ? { spendCapUsd: cap } : {}),
      state: 'running',
    },
  };
}

/** The JSONL file of a shown bench's trajectories, and its name. */
export function trajectoriesFile(shown: ShownBench): { filename: string; text: string } {
  const text = exportTrajectories(shown.results, shown.run.tasks, shown.run.strategies, shown.run.pool);
  const slug = shown.run.name.replace(/[^\w-]+/g, '-').replace(/^-|-$/g, '') || 'bench';
  return { filename: `baton-trajectories-${slug}.jsonl`, text };
}

export interface BenchOptions {
  /** Opens the store (IndexedDB `baton-bench` on the page). */
  openStore: () => Promise<BenchStore>;
  /** Whether `close` closes the store too (not when the caller lent it). Default true. */
  ownsStore?: boolean;
  /** Makes the runner for JavaScript and Python answers, on first need (a sandboxed iframe on the page). */
  codeRunner: () => CodeRunner & { dispose?(): void };
  /** Keeps each scored item as an outcome (src/app/outcomes.ts `record`), for workflow memory. */
  recordOutcome?: (outcome: Outcome) => Promise<void>;
  /**
   * Resolves once the vault can give the pool's keys, asking for the passphrase when it is locked
   * (src/app/vault-unlock.ts); false when the user declined. Absent: the vault is not asked.
   */
  ensureUnlocked?: (pool: readonly WorkerSpec[], purpose: string) => Promise<boolean>;
  /** How items fail over, as runs do (src/app/services.ts `failoverFor`, from Settings); undefined: they do not. */
  failover?: () => Promise<FailoverOptions | undefined>;
}

/** Said when a bench cannot start because the user did not unlock the vault. */
export const BENCH_VAULT_LOCKED =
  'The vault is still locked: the bench needs your passphrase to use the saved keys. Run it again to unlock.';

/**
 * A scored bench item as an outcome: its scorer's verdict is the mark. One per bench, task and strategy,
 * so running the bench again replaces them. Items that failed to run (no answer to score) are not kept.
 */
export function benchOutcome(record: BenchRunRecord, result: BenchItemResult): Outcome | undefined {
  const task = record.tasks.find((t) => t.id === result.taskId);
  const strategy = record.strategies.find((s) => s.id === result.strategyId);
  if (!task || !strategy || result.status !== 'done') return undefined;
  const workerIds = [...new Set(result.plan.steps.map((s) => s.worker))];
  const models = new Map(record.pool.map((w) => [w.id, w.model]));
  return {
    runId: `bench:${record.id}:${result.taskId}:${result.strategyId}`,
    question: task.question,
    strategy: strategy.config.kind === 'single' ? `single:${strategy.config.worker}` : strategy.config.kind,
    plan: result.plan,
    workerIds,
    workerModels: Object.fromEntries(
      workerIds.flatMap((id) => (models.has(id) ? [[id, models.get(id)!]] : [])),
    ),
    good: result.correct,
    source: 'bench',
    costUsd: result.cost,
    latencyMs: result.latencyMs,
    at: result.finishedAt,
  };
}

export type Bench = ReturnType<typeof createBench>;

export function createBench(options: BenchOptions) {
  const store = signal<BenchStore | undefined>(undefined);
  /** Why results cannot be stored (the store did not open, or a write failed): the bench still runs. */
  const storeError = signal<string | undefined>(undefined);
  /** Every stored bench, newest first as the store lists them. */
  const runs = signal<BenchRunRecord[]>([]);
  /** The last bench started here, and its name: its progress stays shown once it ends. */
  const progress = signal<{ name: string; progress: BenchProgress } | undefined>(undefined);
  /** The bench running now. */
  const activeId = signal<string | undefined>(undefined);
  const shown = signal<ShownBench | undefined>(undefined);
  const compare = signal<ShownBench | undefined>(undefined);
  /** What is wrong with the form, after a start that did not happen. */
  const problem = signal<string | undefined>(undefined);
  /** A bench is being started (the vault may be asking for the passphrase): no second start meanwhile. */
  const starting = signal(false);
  let controller: BenchController | undefined;
  let codeRunner: (CodeRunner & { dispose?(): void }) | undefined;
  let closed = false;

  /** Opens the store and lists its benches; a store that cannot open is said, and the bench runs unstored. */
  async function open(): Promise<void> {
    try {
      const opened = await options.openStore();
      if (closed) {
        if (options.ownsStore !== false) opened.close();
        return;
      }
      store.value = opened;
      await refreshRuns();
    } catch (error) {
      storeError.value = `Results cannot be stored here: ${(error as Error).message}`;
    }
  }

  async function refreshRuns(): Promise<void> {
    const s = store.value;
    if (s) runs.value = await s.listRuns();
  }

  /** The runner, made when some task's answer is code to run: JavaScript (`code`) or Python. */
  function runnerFor(tasks: BenchRunRecord['tasks']): CodeRunner | undefined {
    if (!tasks.some((t) => t.kind === 'code' || t.kind === 'python')) return undefined;
    codeRunner ??= options.codeRunner();
    return codeRunner;
  }

  /**
   * What a bench needs before its first item: the vault open (asked for once, as Ask does, rather than
   * failing every item) and how it fails over. Undefined when the user declined to unlock.
   */
  async function prepare(record: BenchRunRecord): Promise<{ failover?: FailoverOptions } | undefined> {
    starting.value = true;
    try {
      if (options.ensureUnlocked && !(await options.ensureUnlocked(record.pool, 'to run this bench'))) {
        problem.value = BENCH_VAULT_LOCKED;
        return undefined;
      }
      const failover = await options.failover?.();
      return failover ? { failover } : {};
    } finally {
      starting.value = false;
    }
  }

  function launch(
    record: BenchRunRecord,
    done: BenchItemResult[],
    env: BenchEnvironment,
    executor: { failover?: FailoverOptions },
  ): BenchController {
    const s = store.value;
    let lastState: BenchRunRecord['state'] = record.state;
    let current = record;
    const save = (patch: Partial<BenchRunRecord>) => {
      current = { ...current, ...patch };
      if (!s) return;
      s.putRun(current)
        .then(() => refreshRuns())
        .catch((error: unknown) => {
          storeError.value = `Could not save the bench: ${(error as Error).message}`;
        });
    };
    const onThis = (fn: (shown: ShownBench) => ShownBench) => {
      const now = shown.value;
      if (now && now.run.id === record.id) shown.value = fn(now);
    };
    activeId.value = record.id;
    shown.value = { run: record, results: done };
    compare.value = undefined;
    const code = runnerFor(record.tasks);
    const runner = runBench({
      tasks: record.tasks,
      strategies: record.strategies,
      pool: record.pool,
      transport: env.transport,
      ...(env.planner ? { planner: env.planner } : {}),
      ...(code ? { codeRunner: code } : {}),
      concurrency: record.concurrency,
      ...(record.spendCapUsd !== undefined ? { spendCapUsd: record.spendCapUsd } : {}),
      executor,
      done,
      onResult: async (result) => {
        // Stored before it is counted, so a reload right after loses nothing. A failed write must not stall the run.
        try {
          await s?.putResult(record.id, result);
        } catch (error) {
          storeError.value = `Could not store a result: ${(error as Error).message}`;
        }
        onThis((v) => ({ ...v, results: [...v.results, result] }));
        const outcome = options.recordOutcome && benchOutcome(record, result);
        // Workflow memory learns from it; a failed write loses only that, never the bench's result.
        if (outcome)
          await options.recordOutcome?.(outcome).catch((error: unknown) => {
            console.warn('A bench outcome could not be kept for workflow memory.', error);
          });
      },
      onProgress: (p) => {
        progress.value = { name: record.name, progress: p };
        if (p.state !== lastState) {
          lastState = p.state;
          save({ state: p.state, ...(p.stopReason ? { stopReason: p.stopReason } : {}) });
          onThis((v) => ({ ...v, run: current }));
        }
      },
    });
    controller = runner;
    progress.value = { name: record.name, progress: runner.progress() };
    void runner.finished.then(() => {
      if (controller === runner) controller = undefined;
      if (activeId.value === record.id) activeId.value = undefined;
      onThis((v) => ({ ...v, run: current }));
    });
    return runner;
  }

  /** Starts the bench the form describes; undefined (with `problem` set) when the form is not valid. */
  async function start(form: BenchForm, env: BenchEnvironment): Promise<BenchController | undefined> {
    if (starting.value || controller) return undefined;
    problem.value = undefined;
    const made = benchFromForm(form, env);
    if (!made.ok) {
      problem.value = made.problem;
      return undefined;
    }
    const ready = await prepare(made.record);
    if (!ready) return undefined;
    try {
      await store.value?.putRun(made.record);
    } catch (error) {
      storeError.value = `Could not save the bench: ${(error as Error).message}`;
    }
    void refreshRuns();
    return launch(made.record, [], env, ready);
  }

  /** Resumes a stored bench that a reload or a pause interrupted: its stored results are not run again. */
  async function resumeStored(id: string, env: BenchEnvironment): Promise<BenchController | undefined> {
    const s = store.value;
    if (!s || controller || starting.value) return undefined;
    const stored = await s.getRun(id);
    if (!stored) return undefined;
    const record: BenchRunRecord = {
      ...stored.run,
      pool: currentWorkers(stored.run.pool, env.pool),
      state: 'running',
    };
    problem.value = undefined;
    const ready = await prepare(record);
    if (!ready) return undefined;
    await s.putRun(record);
    return launch(record, stored.results, env, ready);
  }

  async function show(id: string, into: 'shown' | 'compare'): Promise<void> {
    const stored = await store.value?.getRun(id);
    if (!stored) return;
    if (into === 'shown') shown.value = stored;
    else compare.value = stored;
  }

  /** Deletes a stored bench and its results (not the one running). */
  async function remove(id: string): Promise<void> {
    const s = store.value;
    if (!s || id === activeId.value) return;
    await s.deleteRun(id);
    if (shown.value?.run.id === id) shown.value = undefined;
    if (compare.value?.run.id === id) compare.value = undefined;
    await refreshRuns();
  }

  /** Leaving the bench pauses it (items in flight still finish and are stored), so it can be resumed. */
  function leave(): void {
    controller?.pause();
    codeRunner?.dispose?.();
    codeRunner = undefined;
  }

  /** Leaves it for good: its store is closed too when it owns it. */
  function close(): void {
    closed = true;
    leave();
    if (options.ownsStore !== false) store.value?.close();
  }

  return {
    store,
    storeError,
    runs,
    progress,
    activeId,
    shown,
    compare,
    problem,
    open,
    refreshRuns,
    start,
    resumeStored,
    show,
    remove,
    leave,
    close,
    pause: () => controller?.pause(),
    resume: () => controller?.resume(),
    cancel: () => controller?.cancel(),
  };
}
