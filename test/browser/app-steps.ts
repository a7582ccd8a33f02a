import { expect, type Page, test } from '@playwright/test';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import {
  type ProviderOptions,
  type ScriptedModel,
  startProvider,
  type TestProvider,
} from '../provider/server.ts';
import { plannedRun, seedVersion1 } from './stored-runs.ts';

// What the whole-app specs do as a user would, against real parts: the tiny generated GGUF in the real CPU
// engine inside the conductor worker, the local OpenAI-compatible test provider over real HTTP.

export interface Servers {
  /** Serves the tiny generated conductor model. */
  readonly models: ModelServer;
  /** The workers' provider. */
  readonly provider: TestProvider;
}

/** Starts the model server and a test provider before this file's tests and closes both after them. */
export function useServers(provider: ProviderOptions): Servers {
  const servers = {} as { models: ModelServer; provider: TestProvider };
  test.beforeAll(async () => {
    servers.models = await startModelServer();
    servers.provider = await startProvider(provider);
  });
  test.afterAll(async () => {
    await servers.models?.close();
    await servers.provider?.close();
  });
  return servers;
}

/** A provider model that writes `slow words` `repeats` times, slowly enough to act while it runs. */
export function crawlModel(repeats: number): ScriptedModel {
  return {
    id: 'crawl',
    behaviour: { kind: 'fixed', text: 'slow words '.repeat(repeats) },
    latency: { firstTokenMs: 200, perTokenMs: 150 },
  };
}

/**
 * From the next request on, `model` answers at once: what is checked after the point this is called is
 * that the step ends with its text, not the pace that kept it running until then. Returns the undo.
 */
export function answerAtOnce(provider: TestProvider, model: ScriptedModel): () => void {
  provider.setModel({ ...model, latency: { firstTokenMs: 0, perTokenMs: 0 } });
  return () => provider.setModel(model);
}

/** The chat requests `provider` has had for `model`. */
export function chatRequestsFor(provider: TestProvider, model: string): number {
  return provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === model,
  ).length;
}

export interface Screen {
  name: string;
  hash: string;
  /** Resolves once the screen has rendered. */
  ready: (page: Page) => Promise<void>;
}

/** Start, Ask and History (holding one run), each with what proves it has rendered. */
export const FIRST_SCREENS: Screen[] = [
  {
    name: 'start',
    hash: '#/start',
    ready: (page) => expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true'),
  },
  { name: 'ask', hash: '#/ask', ready: (page) => expect(page.getByTestId('composer')).toBeVisible() },
  {
    name: 'history',
    hash: '#/history',
    ready: (page) => expect(page.getByTestId('history-item')).toHaveCount(1),
  },
];

export function logErrors(page: Page): void {
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log('[page]', msg.text());
  });
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
}

/**
 * Watches for the element `testId` to enter the page and returns what had focus at that moment: the test
 * id of the focused element, or its tag name. The observer runs in the same task as the render that added
 * the element, before a frame shows it, so a dialog that takes focus only after a frame is caught here.
 */
export async function focusWhenShown(page: Page, testId: string): Promise<() => Promise<string | null>> {
  const key = `__focusWhenShown_${testId}`;
  await page.evaluate(
    ({ id, key }) => {
      const found = () => document.querySelector(`[data-testid="${id}"]`);
      const observer = new MutationObserver(() => {
        if (!found()) return;
        const focused = document.activeElement;
        (window as unknown as Record<string, unknown>)[key] =
          focused?.getAttribute('data-testid') ?? focused?.tagName ?? null;
        observer.disconnect();
      });
      observer.observe(document.body, { childList: true, subtree: true });
    },
    { id: testId, key },
  );
  return () => page.evaluate((key) => (window as unknown as Record<string, string | null>)[key] ?? null, key);
}

/** Loads the tiny conductor from `modelURL` on Start and waits until it is ready. */
export async function loadTinyConductor(page: Page, modelURL: string): Promise<void> {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(modelURL);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');
}

/**
 * Opens Settings and limits the plans the conductor writes. Random weights put `self` steps anywhere:
 * depth 0 keeps them out where a test needs a known shape (their recursion has the executor's own tests).
 */
export async function limitPlans(page: Page, limits: { selfCheckDepth: string; maxSteps?: string }) {
  await page.goto('/#/settings');
  await page.getByLabel(/Self-check depth/).selectOption(limits.selfCheckDepth);
  if (limits.maxSteps) await page.getByLabel('Most steps in a plan').selectOption(limits.maxSteps);
}

/** Adds a worker with the Settings form (open already) and waits until the pool lists it. */
export async function addWorker(
  page: Page,
  worker: { baseURL: string; model: string; label: string; strengths?: string },
): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(worker.baseURL);
  await form.getByLabel('Model').fill(worker.model);
  await form.getByLabel('Label').fill(worker.label);
  if (worker.strengths) await form.getByLabel(/Strengths/).fill(worker.strengths);
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(worker.label);
}

/** On Settings (open already): saves `key` for the custom provider at `baseURL`, then sets `passphrase`. */
export async function saveKeyUnderPassphrase(
  page: Page,
  baseURL: string,
  key: string,
  passphrase: string,
): Promise<void> {
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('custom');
  await keys.getByLabel('Server URL').fill(baseURL);
  await keys.getByLabel('API key').fill(key);
  await keys.getByTestId('save-key').click();
  await expect(keys.getByTestId('key-last4')).toHaveText(`…${key.slice(-4)}`);
  await keys.getByText('Passphrase lock').click();
  await keys.getByLabel(/New passphrase/).fill(passphrase);
  await keys.getByLabel('Repeat the passphrase').fill(passphrase);
  await keys.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase set.');
}

/** Adds a worker for `model` on the provider at `baseURL`, its strengths saying it answers like the model. */
export async function addModelWorker(
  page: Page,
  baseURL: string,
  model: string,
  label: string,
): Promise<void> {
  await addWorker(page, { baseURL, model, label, strengths: `answers like ${model}` });
}

/** Asks `question` on Ask, in conductor mode unless told otherwise, reviewing the plan first if told to. */
export async function askQuestion(
  page: Page,
  question: string,
  options: { review?: boolean; mode?: 'router' | 'conductor' } = {},
): Promise<void> {
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  if (options.mode === 'router') await composer.getByLabel('Router').check();
  if (options.review) await composer.getByTestId('review-toggle').check();
  await composer.getByLabel('Your question').fill(question);
  await expect(page.getByTestId('ask-send')).toBeEnabled();
  await composer.getByLabel('Your question').press('Enter');
}

/** In the plan editor, makes the plan exactly `steps` (worker id, task, sees), whatever the conductor wrote. */
export async function editPlan(
  page: Page,
  steps: Array<{ worker: string; task: string; sees: number[] }>,
): Promise<void> {
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible({ timeout: 120_000 });
  for (let count = await editor.locator('fieldset.edit-step').count(); count > 1; count--) {
    await editor.getByRole('button', { name: `Remove step ${count - 1}` }).click();
  }
  for (const [index, step] of steps.entries()) {
    if (index > 0) await editor.getByRole('button', { name: 'Add a step' }).click();
    const fieldset = editor.getByTestId(`edit-step-${index}`);
    await fieldset.getByLabel('Worker').selectOption(step.worker);
    await fieldset.getByLabel('Task').fill(step.task);
    if (index > 0) {
      const all = fieldset.getByLabel('all earlier steps');
      if (await all.isChecked()) await all.uncheck();
      for (let seen = 0; seen < index; seen++) {
        await fieldset.getByLabel(`step ${seen}`, { exact: true }).setChecked(step.sees.includes(seen));
      }
    }
  }
}

/**
 * Opens a plan in review without planning it: stored as a plan not run yet, the way review and Plan only
 * store one, and opened from History. For specs of what follows a review: the tiny model takes seconds to
 * load and writes a random plan the spec would replace anyway. The conductor's own plans in review have
 * their specs (app-flow's first test, plan-review). Call it before the app has opened in the context.
 */
export async function openPlanInReview(page: Page, run: StoredPlan): Promise<void> {
  await storePlan(page, run);
  await openStoredPlan(page, run.question);
}

export interface StoredPlan {
  question: string;
  pool: WorkerSpec[];
  steps: Array<{ worker: string; task: string; sees: number[] }>;
}

/** The first half of `openPlanInReview`: stores the plan (before the app has opened in the context). */
export async function storePlan(page: Page, run: StoredPlan): Promise<void> {
  await seedVersion1(page, [plannedRun(crypto.randomUUID(), run)], []);
}

/** The second half of `openPlanInReview`: opens the stored plan for `question` from History. */
export async function openStoredPlan(page: Page, question: string): Promise<void> {
  await page.goto('/#/history');
  await page.getByRole('link', { name: question }).click();
  await expect(page.getByTestId('plan-editor')).toBeVisible();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'review');
}

/** Imports an export file on History, as a user picking it in the file dialog. */
export async function importRunFile(page: Page, json: string): Promise<void> {
  await page.goto('/#/history');
  await page.getByTestId('import-file').setInputFiles({
    name: 'run.json',
    mimeType: 'application/json',
    buffer: Buffer.from(json),
  });
}

/** Imports an export file into an empty History, waits until History lists it, and returns its link. */
export async function importOneRun(page: Page, json: string): Promise<string | null> {
  await importRunFile(page, json);
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  return page.getByTestId('history-item').getByRole('link').getAttribute('href');
}

/** Writes `count` chat entries into the app's own ledger database (it exists once the app opened it). */
export async function seedLedger(page: Page, count: number): Promise<void> {
  await page.evaluate(
    (count) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('baton-ledger');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction('entries', 'readwrite');
          for (let i = 0; i < count; i++) {
            tx.objectStore('entries').add({
              time: Date.now(),
              purpose: 'chat',
              providerId: 'custom',
              host: `seed${i}.example`,
              method: 'POST',
              path: '/v1/chat/completions',
              sent: true,
              keyAttached: false,
              state: 'done',
              status: 200,
              bytesOut: 1,
              bytesIn: 1,
            });
          }
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    count,
  );
}
