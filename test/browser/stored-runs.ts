import type { Page } from '@playwright/test';

// Run records written straight into the browser's IndexedDB as Baton's first database version stored them
// (before summaries existed), so the app meets them the way a user's old or damaged history is met: through
// the upgrade and every read path.

const T0 = 1_750_000_000_000;

export function storedRun(id: string, at: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    question: `Stored question ${id}`,
    mode: 'conductor',
    pool: [
      {
        id: 'w1',
        label: 'Echo',
        strengths: '',
        providerId: 'custom',
        baseURL: 'http://127.0.0.1:9/v1',
        model: 'echo',
        maxConcurrency: 2,
        enabled: true,
      },
    ],
    plan: { steps: [{ worker: 'w1', task: 'Say it.', sees: [] }] },
    planComplete: true,
    includeQuestion: true,
    status: 'done',
    createdAt: T0 + at,
    updatedAt: T0 + at,
    totals: { promptTokens: 2, completionTokens: 1, cost: 0, steps: 1, done: 1, failed: 0, cancelled: 0 },
    answer: `Stored answer ${id}`,
    ...overrides,
  };
}

export function storedStep(runId: string, overrides: Record<string, unknown> = {}) {
  return {
    runId,
    index: 0,
    worker: 'w1',
    task: 'Say it.',
    sees: [],
    depth: 0,
    state: 'done',
    text: `Stored answer ${runId}`,
    timings: { queuedAt: T0, startedAt: T0 + 1, endedAt: T0 + 2 },
    attempts: 1,
    ...overrides,
  };
}

/** Writes runs and steps into a version-1 `baton-runs` database, from a page of the app's origin that does not run the app. */
export async function seedVersion1(page: Page, runs: unknown[], steps: unknown[]): Promise<void> {
  await page.goto('/favicon.svg');
  await page.evaluate(
    async ({ runs, steps }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('baton-runs', 1);
        open.onupgradeneeded = () => {
          const created = open.result;
          const runStore = created.createObjectStore('runs', { keyPath: 'id' });
          runStore.createIndex('updatedAt', 'updatedAt');
          runStore.createIndex('status', 'status');
          const stepStore = created.createObjectStore('steps', { keyPath: ['runId', 'index'] });
          stepStore.createIndex('runId', 'runId');
        };
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const tx = db.transaction(['runs', 'steps'], 'readwrite');
      for (const run of runs) tx.objectStore('runs').put(run);
      for (const step of steps) tx.objectStore('steps').put(step);
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    { runs, steps },
  );
}
