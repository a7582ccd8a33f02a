import { randomUUID } from 'node:crypto';
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

/**
 * Writes the prefs and the pool store as `openPoolStore` keeps it (one record per worker with its place in the
 * order): localStorage at once, and the pool in the database's creation (or, were it made already, in a
 * transaction opened first), which the app's own open of that database waits for.
 */
function seedInPage(records: {
  poolDB: string;
  workers: WorkerSpec[];
  storage: Record<string, string>;
}): void {
  for (const [key, value] of Object.entries(records.storage)) localStorage.setItem(key, value);
  if (!records.workers.length) return;
  const put = (store: IDBObjectStore) => {
    for (const [order, worker] of records.workers.entries()) store.put({ ...worker, order });
  };
  const open = indexedDB.open(records.poolDB, 1);
  let created = false;
  open.onupgradeneeded = () => {
    created = true;
    put(open.result.createObjectStore('workers', { keyPath: 'id' }));
  };
  open.onsuccess = () => {
    const db = open.result;
    if (!created) put(db.transaction('workers', 'readwrite').objectStore('workers'));
    db.close();
  };
}

/** Calls `write(arg)` unless this tab has called it already (`mark` in its sessionStorage). */
function onceInTab<A>(mark: string, write: (arg: A) => unknown, arg: A): void {
  if (window !== window.top) return;
  try {
    if (sessionStorage.getItem(mark) !== null) return;
    sessionStorage.setItem(mark, '1');
  } catch {
    // A document without storage of its own (about:blank, an opaque origin): not the app's.
    return;
  }
  void write(arg);
}

/**
 * Runs `write(arg)` in `page` at the start of its next document, before any of the app's code: what the app
 * opens after it waits for what it opened (IndexedDB serves one database's opens in order). Once per tab,
 * so a reload keeps what the app or the test changed since. `write` must use nothing from outside its body
 * (it is sent as source) and `arg` must be JSON. An init script rather than a visit to a page of the origin
 * that does not run the app: that cost a navigation per seed (about 0.5 s under load).
 */
export async function writeBeforeApp<A>(page: Page, write: (arg: A) => unknown, arg: A): Promise<void> {
  await page.addInitScript({ content: initScript(`baton-test-seed-${randomUUID()}`, write, arg) });
}

/**
 * The init script's source. `__name` is bound to a function that gives back its argument: the bench runs under
 * tsx, whose esbuild keeps names by wrapping a function's named inner functions in `__name(…)`, a helper of the
 * module that a function sent as source does not take along (`seedInPage`'s `put` threw in the page, so
 * nothing was seeded and p30 waited for a run that never started).
 */
export function initScript<A>(mark: string, write: (arg: A) => unknown, arg: A): string {
  return `((__name) => (${onceInTab})(${JSON.stringify(mark)}, ${write}, ${JSON.stringify(arg)}))((f) => f);`;
}

/**
 * Seeds the app's storage for this page's context. Call it first, before the app has opened in the context:
 * the app's next load on this page reads all of it at start (`writeBeforeApp`).
 */
export async function seedApp(page: Page, seed: Seed): Promise<void> {
  const workers = [...(seed.pool ?? [])];
  for (const worker of workers) {
    const problems = workerProblems(worker);
    if (problems.length)
      throw new Error(`The seeded worker ${worker.id} cannot be saved: ${problems.join(' ')}`);
  }
  await writeBeforeApp(page, seedInPage, { poolDB: POOL_DB, workers, storage: prefsEntries(seed) });
}
