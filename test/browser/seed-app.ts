import type { Page } from '@playwright/test';
import { RUN_WORKER_CHOICE } from '../../src/app/pool.ts';
import { type AppPrefs, createPrefs, type PlanPrefs, type RunPrefs } from '../../src/app/prefs.ts';
import { knownProvidersStore, providerOf } from '../../src/app/runs/files-confirm.ts';
import { workerProblems } from '../../src/pool/worker-rules.ts';
import { POOL_DB } from '../../src/records/pool-store.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';

// The state a spec needs but does not test (a pool, planning limits), written where the app keeps it
// before the app starts: a page visit and form fills per worker cost seconds each, and the forms have their
// own specs (pool-panel, start-setup, app-flow's first test). The prefs are written by the app's own
// `createPrefs` and the workers are checked by the pool store's own rules, so a change of keys, shape or
// rules shows here rather than as a seed the app silently ignores.

export interface Seed {
  /** The pool, in order, as the Settings form saves it (see `customWorker`). */
  pool?: readonly WorkerSpec[];
  /** Planning limits (Settings → Conductor); the ones not named keep the app's defaults. */
  plan?: Partial<PlanPrefs>;
  /** How runs go on when a worker fails (Settings → Planning). */
  run?: Partial<RunPrefs>;
  /**
   * Whether the code sandbox is offered to the conductor as the worker `run` (Settings → Pool). Off unless
   * asked for: the tiny model's random plans give it steps with nothing to run, which planning refuses and
   * writes again, for seconds to minutes; the sandbox's own specs test it.
   */
  sandbox?: boolean;
  /**
   * Whether the pool's providers are new to the user's files: a plan nobody reviewed then asks before it
   * sends them a file (src/app/runs/files-confirm.ts). Off unless asked for: the specs that are not about
   * it seed the pool's providers as ones the user has sent files to.
   */
  filesNew?: boolean;
}

/** A worker on a custom OpenAI-compatible endpoint, as the Settings form saves one given only these fields. */
export function customWorker(
  worker: Pick<WorkerSpec, 'id' | 'baseURL' | 'model' | 'label'> & Partial<WorkerSpec>,
): WorkerSpec {
  return { strengths: '', providerId: 'custom', maxConcurrency: 2, enabled: true, ...worker };
}

/** A custom worker for `model` whose strengths say it answers like the model (as `addModelWorker` adds it). */
export function modelWorker(id: string, baseURL: string, model: string, label: string): WorkerSpec {
  return customWorker({ id, baseURL, model, label, strengths: `answers like ${model}` });
}

/** The localStorage entries the app itself writes for these prefs (its defaults for the rest). */
function prefsEntries(seed: Seed): Record<string, string> {
  const written = new Map<string, string>();
  const had = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', {
    configurable: true,
    value: {
      getItem: (key: string) => written.get(key) ?? null,
      setItem: (key: string, value: string) => written.set(key, value),
    },
  });
  try {
    const prefs: AppPrefs = createPrefs();
    if (seed.plan) prefs.planPrefs.value = { ...prefs.planPrefs.value, ...seed.plan };
    if (seed.run) prefs.runPrefs.value = { ...prefs.runPrefs.value, ...seed.run };
    written.set(RUN_WORKER_CHOICE, seed.sandbox ? '1' : '0');
    if (!seed.filesNew) {
      const sentTo = (seed.pool ?? []).flatMap((w) => providerOf(w)?.key ?? []);
      knownProvidersStore().write({ sentTo: [...new Set(sentTo)], remembered: [] });
    }
    // How answers are shown is the browser context's (playwright.config.ts): the seed leaves it alone.
    written.delete('baton.viewPrefs');
  } finally {
    if (had) Object.defineProperty(globalThis, 'localStorage', had);
    else Reflect.deleteProperty(globalThis, 'localStorage');
  }
  return Object.fromEntries(written);
}

/** Writes the pool store as `openPoolStore` keeps it: one record per worker with its place in the order. */
async function writeInPage(records: {
  poolDB: string;
  workers: WorkerSpec[];
  storage: Record<string, string>;
}): Promise<void> {
  for (const [key, value] of Object.entries(records.storage)) localStorage.setItem(key, value);
  if (!records.workers.length) return;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(records.poolDB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('workers', { keyPath: 'id' });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const tx = db.transaction('workers', 'readwrite');
  for (const [order, worker] of records.workers.entries())
    tx.objectStore('workers').put({ ...worker, order });
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

/**
 * Seeds the app's storage for this page's context. Call it first, before the app has opened in the context:
 * it writes from a page of the app's origin that does not run the app, and the app reads all of it at start.
 */
export async function seedApp(page: Page, seed: Seed): Promise<void> {
  const workers = [...(seed.pool ?? [])];
  for (const worker of workers) {
    const problems = workerProblems(worker);
    if (problems.length)
      throw new Error(`The seeded worker ${worker.id} cannot be saved: ${problems.join(' ')}`);
  }
  await page.goto('/favicon.svg');
  await page.evaluate(writeInPage, { poolDB: POOL_DB, workers, storage: prefsEntries(seed) });
}
