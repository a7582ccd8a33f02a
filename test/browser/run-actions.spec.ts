import { askQuestion, crawlModel, loadTinyConductor, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';

// Run-view actions against real parts: the tiny generated GGUF in the real CPU engine (the conductor),
// the local test provider over real HTTP (the worker), real IndexedDB and the model cache.

const servers = useServers({ cors: 'strict', models: [crawlModel(60)] });

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
  // No recursion, so the one step goes to the one worker.
  await seedApp(page, {
    pool: [customWorker({ id: 'w1', baseURL: servers.provider.baseURL, model: 'crawl', label: 'Crawl' })],
    plan: { maxDepth: 0 },
  });
  await loadTinyConductor(page, servers.models.url);

  await askQuestion(page, 'Write a long answer.', { mode: 'router' });
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
  await loadTinyConductor(page, servers.models.url);
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
