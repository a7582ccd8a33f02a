import { expect, type Page, test } from '@playwright/test';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';

// The whole app against real parts: the tiny generated GGUF in the real CPU engine inside the conductor
// worker (the conductor), the local OpenAI-compatible test provider over real HTTP with strict CORS (the
// workers), real IndexedDB. The tiny model's plans are nonsense but valid, so the tests check shape and
// flow, and edit the plan where they need a particular shape.

let models: ModelServer;
let provider: TestProvider;

test.beforeAll(async () => {
  models = await startModelServer();
  provider = await startProvider({
    cors: 'strict',
    models: [
      { id: 'paced', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 400, perTokenMs: 30 } },
      {
        id: 'crawl',
        behaviour: { kind: 'fixed', text: 'slow words '.repeat(40) },
        latency: { firstTokenMs: 200, perTokenMs: 150 },
      },
    ],
  });
});
test.afterAll(async () => {
  await models?.close();
  await provider?.close();
});

test.describe.configure({ mode: 'serial' });

function logErrors(page: Page): void {
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log('[page]', msg.text());
  });
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
}

async function loadTinyConductor(page: Page): Promise<void> {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(models.url);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');
}

async function addWorker(page: Page, model: string, label: string): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(provider.baseURL);
  await form.getByLabel('Model').fill(model);
  await form.getByLabel('Label').fill(label);
  await form.getByLabel(/Strengths/).fill(`answers like ${model}`);
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(label);
}

async function setUpPool(page: Page): Promise<void> {
  await page.goto('/#/settings');
  // Random weights put `self` steps anywhere; their recursion is tested by the executor's own tests.
  await page.getByLabel(/Self-check depth/).selectOption('0');
  await page.getByLabel('Most steps in a plan').selectOption('3');
  await addWorker(page, 'paced', 'Paced echo');
  await addWorker(page, 'upper', 'Upper');
}

async function askQuestion(
  page: Page,
  question: string,
  options: { review?: boolean; mode?: 'router' | 'conductor' } = {},
) {
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  if (options.mode === 'router') await composer.getByLabel('Router').check();
  if (options.review) await composer.getByTestId('review-toggle').check();
  await composer.getByLabel('Your question').fill(question);
  await expect(page.getByTestId('ask-send')).toBeEnabled();
  await composer.getByLabel('Your question').press('Enter');
}

test('full flow: first run, pool of two providers, ask, streamed plan, steps run, answer, history after reload', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  await loadTinyConductor(page);
  await setUpPool(page);

  await askQuestion(page, 'Say hello and then say it louder.');
  const run = page.getByTestId('run');
  await expect(run).toBeVisible();
  // The plan streams in: the conductor's raw output grows while planning.
  await expect(page.getByTestId('plan-stream')).not.toHaveText('…', { timeout: 30_000 });
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible();
  await expect(page.locator('[data-testid^="graph-node-"]').first()).toBeVisible();
  await expect(page.locator('[data-testid^="timeline-bar-"]').first()).toBeVisible();
  const runId = await run.getAttribute('data-run-id');
  // Every step went to the test provider over real HTTP.
  expect(provider.requests.some((r) => r.path === '/v1/chat/completions' && r.method === 'POST')).toBe(true);

  await page.reload();
  await page.goto('/#/history');
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await page.getByTestId('history-item').getByRole('link').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-run-id', runId!);
  await expect(page.getByTestId('final-answer')).toBeVisible();
});
