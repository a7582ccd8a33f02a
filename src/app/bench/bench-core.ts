import { type Signal, signal } from '@preact/signals';
import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import type { BenchController, BenchProgress } from '../../evaluation/bench-runner.ts';
import type { BenchRunRecord, BenchStore } from '../../evaluation/bench-store.ts';
import type { CodeRunner } from '../../evaluation/score.ts';
import type { FailoverOptions } from '../../executor/failover.ts';
import type { Outcome } from '../../learning/outcome.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { StoreSource } from '../screen-store.ts';

/** A bench run and its results, as a results panel shows it. */
export interface ShownBench {
  run: BenchRunRecord;
  results: BenchItemResult[];
}

export interface BenchOptions extends StoreSource<BenchStore> {
  /** Opens the store (IndexedDB `baton-bench` on the page). */
  openStore: () => Promise<BenchStore>;
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

/** What every part of the bench shares: its store, what the screen shows, and the bench running now. */
export interface BenchCore {
  options: BenchOptions;
  store: Signal<BenchStore | undefined>;
  /** Why results cannot be stored (the store did not open, or a write failed): the bench still runs. */
  storeError: Signal<string | undefined>;
  /** Every stored bench, newest first as the store lists them. */
  runs: Signal<BenchRunRecord[]>;
  /** The last bench started here, and its name: its progress stays shown once it ends. */
  progress: Signal<{ name: string; progress: BenchProgress } | undefined>;
  /** The bench running now. */
  activeId: Signal<string | undefined>;
  shown: Signal<ShownBench | undefined>;
  compare: Signal<ShownBench | undefined>;
  /** What is wrong with the form, after a start that did not happen. */
  problem: Signal<string | undefined>;
  /** A bench is being started (the vault may be asking for the passphrase): no second start meanwhile. */
  starting: Signal<boolean>;
  /** The running bench's controls, if one runs. */
  controller: BenchController | undefined;
  /** The runner for code answers, once a bench needed it. */
  codeRunner: (CodeRunner & { dispose?(): void }) | undefined;
  refreshRuns(): Promise<void>;
  /** The runner, made when some task's answer is code to run: JavaScript (`code`) or Python. */
  runnerFor(tasks: BenchRunRecord['tasks']): CodeRunner | undefined;
}

/** The shared state of the bench; `store` is the one its opening and closing hold (src/app/screen-store.ts). */
export function createBenchCore(options: BenchOptions, store: Signal<BenchStore | undefined>): BenchCore {
  const core: BenchCore = {
    options,
    store,
    storeError: signal<string | undefined>(undefined),
    runs: signal<BenchRunRecord[]>([]),
    progress: signal<{ name: string; progress: BenchProgress } | undefined>(undefined),
    activeId: signal<string | undefined>(undefined),
    shown: signal<ShownBench | undefined>(undefined),
    compare: signal<ShownBench | undefined>(undefined),
    problem: signal<string | undefined>(undefined),
    starting: signal(false),
    controller: undefined,
    codeRunner: undefined,
    async refreshRuns() {
      const s = core.store.value;
      if (s) core.runs.value = await s.listRuns();
    },
    runnerFor(tasks) {
      if (!tasks.some((t) => t.kind === 'code' || t.kind === 'python')) return undefined;
      core.codeRunner ??= options.codeRunner();
      return core.codeRunner;
    },
  };
  return core;
}
