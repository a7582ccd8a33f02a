import { ENGINE_CACHE } from '../../build/engine-assets.ts';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { limitPlans } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';

// The service worker is what this spec is about (blocked by default: playwright.config.ts).
test.use({ serviceWorkers: 'allow' });

// The installable app: after the first visit the service worker serves the app shell, and once an engine
// was used (its files cached then, not on the first visit) and the conductor model is in the cache, the
// offline demo (conductor plans, the on-device `local` worker answers) runs with the network cut.

let models: ModelServer | undefined;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(async () => {
  await models?.close();
});

/** Every same-origin path the service worker's caches hold. */
function cachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname);
    }
    return paths;
  });
}

// One first visit for both what makes the app installable and what that visit caches: each is a fresh
// context's service worker install (136 files precached), which the two tests paid for twice.
test('a first visit makes the app installable (manifest, service worker) and precaches the app shell only: neither engine is downloaded before one is chosen', async ({
  page,
  context,
}) => {
  // Both engines, by what they are rather than by file name: wllama's runtime is the app's only wasm, and
  // only web-llm's own bundle defines its ServiceWorkerMLCEngineHandler.
  const fetched: string[] = [];
  context.on('request', (request) => fetched.push(new URL(request.url()).pathname));
  await page.goto('/');
  await expect(page.getByTestId('start-screen')).toBeVisible();
  const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await (await page.request.get(manifestHref!)).json();
  expect(manifest).toMatchObject({ name: 'Baton', display: 'standalone', start_url: '/' });
  expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(
    expect.arrayContaining(['192x192', '512x512']),
  );
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  expect(new URL(scope).pathname).toBe('/');
  const cached = await cachedPaths(page);
  expect(cached).toContain('/index.html');
  expect(cached.some((path) => /\/assets\/main-[^/]+\.js$/.test(path))).toBe(true);
  expect(cached.filter((path) => path.endsWith('.wasm'))).toEqual([]);
  expect(fetched.filter((path) => path.endsWith('.wasm'))).toEqual([]);
  const withWebLlm = await page.evaluate(async (paths) => {
    const found: string[] = [];
    for (const path of paths.filter((p) => p.endsWith('.js'))) {
      const response = await caches.match(path);
      if (response && (await response.text()).includes('ServiceWorkerMLCEngineHandler')) found.push(path);
    }
    return found;
  }, cached);
  expect(withWebLlm).toEqual([]);
  // Nor the local server engine (the openai SDK it streams with), which few users choose.
  expect(cached.filter((path) => path.includes('/local-server-'))).toEqual([]);
});

/** The same-origin wasm files in the engines' runtime cache. */
function cachedEngineWasm(page: Page): Promise<string[]> {
  return page.evaluate(async (name) => {
    const cache = await caches.open(name);
    return (await cache.keys())
      .map((request) => new URL(request.url).pathname)
      .filter((p) => p.endsWith('.wasm'));
  }, ENGINE_CACHE);
}

/**
 * Loads the tiny model with the CPU engine from Start without waiting for anything first (not even the
 * capability probe), as a user clicking at once on a first visit would.
 */
async function loadModelAtOnce(page: Page): Promise<void> {
  await page.goto('/#/start');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(models!.url);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
}

// The offline demo needs an engine cached by a first visit: the one loaded at once, before the service
// worker is active, is that visit (loading the model takes a fresh page seconds, paid once for both).
test('an engine loaded at once on a first visit, before the service worker is active, is still cached; offline after that visit the app loads from the service worker and the offline demo completes', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000);
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
  // A first visit: choose the CPU engine and load a model at once, so the engine's files are fetched (and
  // cached) only now.
  await loadModelAtOnce(page);
  // The engine was not precached; using it cached its files (wllama's wasm) for offline use. The conductor's
  // worker started only once the service worker controlled the page, so the engine's files went through it;
  // otherwise they would bypass it and be missing offline.
  await expect.poll(() => cachedEngineWasm(page)).toHaveLength(1);
  await limitPlans(page, { selfCheckDepth: '0', maxSteps: '2' });
  await page.goto('/#/start');

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
  await expect(page.getByTestId('step-card-0')).toContainText('On-device model');
});
