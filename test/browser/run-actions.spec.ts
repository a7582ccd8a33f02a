import { expect, type Page, test } from '@playwright/test';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';

// Run-view actions against real parts: the tiny generated GGUF in the real CPU engine (the conductor),
// the local test provider over real HTTP (the worker), real IndexedDB and the model cache.

let models: ModelServer;
let provider: TestProvider;

test.beforeAll(async () => {
  models = await startModelServer();
  provider = await startProvider({
    cors: 'strict',
    models: [
      {
        id: 'crawl',
        behaviour: { kind: 'fixed', text: 'slow words '.repeat(60) },
        latency: { firstTokenMs: 200, perTokenMs: 150 },
      },
    ],
  });
});
test.afterAll(async () => {
  await models?.close();
  await provider?.close();
});

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

test('"Review the plan before it runs" is remembered across a reload', async ({ page }) => {
  await page.goto('/#/ask');
  const toggle = page.getByTestId('review-toggle');
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await page.reload();
  await expect(page.getByTestId('review-toggle')).toBeChecked();
  await page.getByTestId('review-toggle').uncheck();
  await page.reload();
  await expect(page.getByTestId('review-toggle')).not.toBeChecked();
});

test('after Cancel run the focus goes to the question box, not the page body', async ({ page }) => {
  test.setTimeout(240_000);
  await loadTinyConductor(page);
  await page.goto('/#/settings');
  // Random weights put `self` steps anywhere: no recursion, so the one step goes to the one worker.
  await page.getByLabel(/Self-check depth/).selectOption('0');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(provider.baseURL);
  await form.getByLabel('Model').fill('crawl');
  await form.getByLabel('Label').fill('Crawl');
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText('Crawl');

  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Router').check();
  await composer.getByLabel('Your question').fill('Write a long answer.');
  await composer.getByLabel('Your question').press('Enter');
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'running', {
    timeout: 120_000,
  });
  await page.getByTestId('cancel-run').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled', { timeout: 15_000 });
  await expect(page.getByTestId('cancel-run')).toHaveCount(0);
  await expect(page.getByLabel('Your question')).toBeFocused();
});

test('deleting the conductor model from the cache asks first; declining keeps it', async ({ page }) => {
  test.setTimeout(180_000);
  await loadTinyConductor(page);
  await page.goto('/#/settings');
  const panel = page.getByTestId('model-cache');
  const remove = panel.getByRole('button', { name: 'Delete the model from the cache' });
  await expect(remove).toBeVisible();
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await remove.click();
  await expect.poll(() => asked).toMatch(/Delete .+ from this browser's cache\?/);
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');
  await expect(panel).not.toContainText('deleted');

  page.once('dialog', (dialog) => void dialog.accept());
  await remove.click();
  await expect(panel.getByRole('status')).toHaveText('The model was deleted from the cache.');
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'none');
});
