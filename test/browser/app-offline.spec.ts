import { expect, test } from '@playwright/test';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';

// The installable app: after the first visit the service worker serves the app shell, and with the
// conductor model in the cache the offline demo (conductor plans, the on-device `local` worker answers)
// runs with the network cut.

let models: ModelServer | undefined;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(async () => {
  await models?.close();
});

test('manifest and service worker make the app installable', async ({ page }) => {
  await page.goto('/');
  const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await (await page.request.get(manifestHref!)).json();
  expect(manifest).toMatchObject({ name: 'Baton', display: 'standalone', start_url: '/' });
  expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(
    expect.arrayContaining(['192x192', '512x512']),
  );
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  expect(new URL(scope).pathname).toBe('/');
});

test('offline after the first visit: the app loads from the service worker and the offline demo completes', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
  await page.goto('/#/settings');
  await page.getByLabel(/Self-check depth/).selectOption('0');
  await page.getByLabel('Most steps in a plan').selectOption('2');
  await page.goto('/#/start');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(models!.url);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  // The shell is precached once the service worker is active.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });

  // Cut the network: the browser is offline and the model host is gone.
  await models!.close();
  models = undefined;
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('start-screen')).toBeVisible();
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  // The remembered model is in the cache: it loads again without the network.
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready', {
    timeout: 60_000,
  });
  await page.getByTestId('offline-demo').click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible();
  await expect(page.getByTestId('step-card-0')).toContainText('local');
});
