import { computed, signal } from '@preact/signals';
import { codeRunnerWorker } from '../executor/code-runner-worker.ts';
import type { PoolStore } from '../records/pool-store.ts';
import { LOCAL_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { storedValue } from './local-store.ts';

/** Where the choice to offer the code sandbox as the worker `run` is kept ('0': not offered). */
export const RUN_WORKER_CHOICE = 'baton.codeRunnerWorker';
export const RUN_TOOL_CHOICE = 'baton.codeRunnerTool';

/** The on-device model as a worker: answers with the conductor's own model, no key, no network. */
export function localWorker(): WorkerSpec {
  return {
    id: LOCAL_WORKER,
    label: 'On-device model',
    strengths: 'private and offline; small, so best for short, simple tasks',
    providerId: 'local-device',
    baseURL: '',
    model: 'conductor',
    maxConcurrency: 1,
    price: { inputPerM: 0, outputPerM: 0 },
    costTier: 'low',
    enabled: true,
  };
}

function problemText(error: unknown): string {
  return (error as { message?: string }).message ?? String(error);
}

/**
 * The user's pool of workers, as last read from the pool store, and the actions that change it. A problem
 * (bad URL, reserved id, unreadable store) is published in `poolError` for the pool panel.
 */
export function createPool(services: { poolStore(): Promise<PoolStore> }) {
  const pool = signal<WorkerSpec[]>([]);
  const enabledPool = computed(() => pool.value.filter((w) => w.enabled));
  /** Worker ids in pool order (for stable colours). */
  const workerOrder = computed(() => [...pool.value.map((w) => w.id), LOCAL_WORKER]);
  const poolError = signal<string | undefined>(undefined);

  const localChoice = storedValue<boolean>(
    'baton.localWorker',
    (raw) => raw === '1',
    (on) => (on ? '1' : '0'),
  );
  /** Whether the on-device model is offered to the conductor as the worker `local` (it is never stored). */
  const includeLocal = signal<boolean>(localChoice.read());
  function setIncludeLocal(on: boolean): void {
    includeLocal.value = on;
    localChoice.write(on);
  }
  const runChoice = storedValue<boolean>(
    RUN_WORKER_CHOICE,
    (raw) => raw !== '0',
    (on) => (on ? '1' : '0'),
  );
  /** Whether the code sandbox is offered to the conductor as the worker `run` (on unless turned off). */
  const includeRun = signal<boolean>(runChoice.read());
  function setIncludeRun(on: boolean): void {
    includeRun.value = on;
    runChoice.write(on);
  }
  const runToolChoice = storedValue<boolean>(
    RUN_TOOL_CHOICE,
    (raw) => raw === '1',
    (on) => (on ? '1' : '0'),
  );
  /**
   * Whether the sandbox is also the tool `sandbox.run_python` inside steps, while `run` is offered. Off
   * unless turned on: an offered tool puts a tools block in every conductor prompt (bench p8a).
   */
  const includeRunTool = signal<boolean>(runToolChoice.read());
  function setIncludeRunTool(on: boolean): void {
    includeRunTool.value = on;
    runToolChoice.write(on);
  }
  /** The workers a run may use: the enabled stored ones, plus `local` and `run` when chosen. */
  const runPool = computed(() => [
    ...enabledPool.value,
    ...(includeLocal.value ? [localWorker()] : []),
    ...(includeRun.value ? [codeRunnerWorker()] : []),
  ]);

  // No subscription: only this pool writes the store, and each write reads the list back itself.
  async function saveWorker(worker: WorkerSpec): Promise<boolean> {
    poolError.value = undefined;
    try {
      const store = await services.poolStore();
      await store.save(worker);
      pool.value = await store.list();
      return true;
    } catch (error) {
      poolError.value = problemText(error);
      return false;
    }
  }

  async function deleteWorker(id: string): Promise<void> {
    poolError.value = undefined;
    try {
      const store = await services.poolStore();
      await store.remove(id);
      pool.value = await store.list();
    } catch (error) {
      poolError.value = problemText(error);
    }
  }

  async function loadPool(): Promise<void> {
    try {
      const store = await services.poolStore();
      pool.value = await store.list();
    } catch (error) {
      poolError.value = `The pool could not be read: ${problemText(error)}`;
    }
  }

  return {
    pool,
    enabledPool,
    workerOrder,
    poolError,
    includeLocal,
    setIncludeLocal,
    includeRun,
    includeRunTool,
    setIncludeRunTool,
    setIncludeRun,
    runPool,
    saveWorker,
    deleteWorker,
    loadPool,
  };
}

export type Pool = ReturnType<typeof createPool>;
