import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import { type BenchController, runBench } from '../../evaluation/bench-runner.ts';
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import type { FailoverOptions } from '../../executor/failover.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { BenchCore, ShownBench } from './bench-core.ts';
import { type BenchEnvironment, type BenchForm, benchFromForm } from './bench-form.ts';
import { benchOutcome } from './bench-outcome.ts';

/** Said when a bench cannot start because the user did not unlock the vault. */
export const BENCH_VAULT_LOCKED =
  'The vault is still locked: the bench needs your passphrase to use the saved keys. Run it again to unlock.';

/** Stored workers, refreshed from the current pool where the id still exists (base URL or price may have changed). */
export function currentWorkers(stored: readonly WorkerSpec[], pool: readonly WorkerSpec[]): WorkerSpec[] {
  return stored.map((w) => pool.find((p) => p.id === w.id) ?? w);
}

/** A bench under way: started from the form or resumed from the store, its results stored as they come. */
export function createBenchLaunching(core: BenchCore) {
  const { options, store, storeError, progress, activeId, shown, compare, problem, starting } = core;

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
        .then(() => core.refreshRuns())
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
    const code = core.runnerFor(record.tasks);
    const runner = runBench({
      tasks: record.tasks,
      strategies: record.strategies,
      pool: record.pool,
      ...(record.document ? { document: record.document } : {}),
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
    core.controller = runner;
    progress.value = { name: record.name, progress: runner.progress() };
    void runner.finished.then(() => {
      if (core.controller === runner) core.controller = undefined;
      if (activeId.value === record.id) activeId.value = undefined;
      onThis((v) => ({ ...v, run: current }));
    });
    return runner;
  }

  /** Starts the bench the form describes; undefined (with `problem` set) when the form is not valid. */
  async function start(form: BenchForm, env: BenchEnvironment): Promise<BenchController | undefined> {
    if (starting.value || core.controller) return undefined;
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
    void core.refreshRuns();
    return launch(made.record, [], env, ready);
  }

  /** Resumes a stored bench that a reload or a pause interrupted: its stored results are not run again. */
  async function resumeStored(id: string, env: BenchEnvironment): Promise<BenchController | undefined> {
    const s = store.value;
    if (!s || core.controller || starting.value) return undefined;
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

  return { start, resumeStored };
}
