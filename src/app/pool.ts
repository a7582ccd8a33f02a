import { computed, signal } from '@preact/signals';
import type { PoolStore } from '../pool/store.ts';
import { LOCAL_WORKER, type WorkerSpec } from '../pool/types.ts';
import { storedValue } from './local-store.ts';

/** The user's pool of workers, as last loaded from the pool store. */
export const pool = signal<WorkerSpec[]>([]);

export const enabledPool = computed(() => pool.value.filter((w) => w.enabled));

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

/** Worker ids in pool order (for stable colours). */
export const workerOrder = computed(() => [...pool.value.map((w) => w.id), LOCAL_WORKER]);

/** The last pool operation's failure, shown by the pool panel. */
export const poolError = signal<string | undefined>(undefined);

const LOCAL_KEY = 'baton.localWorker';

const localChoice = storedValue<boolean>(
  LOCAL_KEY,
  (raw) => raw === '1',
  (on) => (on ? '1' : '0'),
);

/** Whether the on-device model is offered to the conductor as the worker `local` (it is never stored). */
export const includeLocal = signal<boolean>(localChoice.read());

export function setIncludeLocal(on: boolean): void {
  includeLocal.value = on;
  localChoice.write(on);
}

/** The workers a run may use: the enabled stored ones, plus `local` when chosen. */
export const runPool = computed(() => [...enabledPool.value, ...(includeLocal.value ? [localWorker()] : [])]);

let store: Promise<PoolStore> | undefined;

function getPoolStore(): Promise<PoolStore> {
  // No subscription: only this module writes the store, and each write reads the list back itself.
  store ??= import('../pool/store.ts').then((m) => m.openPoolStore());
  return store;
}

function problemText(error: unknown): string {
  return (error as { message?: string }).message ?? String(error);
}

/** Creates or replaces a worker; a problem (bad URL, reserved id...) is shown in the pool panel. */
export async function saveWorker(worker: WorkerSpec): Promise<boolean> {
  poolError.value = undefined;
  try {
    const s = await getPoolStore();
    await s.save(worker);
    pool.value = await s.list();
    return true;
  } catch (error) {
    poolError.value = problemText(error);
    return false;
  }
}

export async function deleteWorker(id: string): Promise<void> {
  poolError.value = undefined;
  try {
    const s = await getPoolStore();
    await s.remove(id);
    pool.value = await s.list();
  } catch (error) {
    poolError.value = problemText(error);
  }
}

export async function loadPool(): Promise<void> {
  try {
    const s = await getPoolStore();
    pool.value = await s.list();
  } catch (error) {
    poolError.value = `The pool could not be read: ${problemText(error)}`;
  }
}
