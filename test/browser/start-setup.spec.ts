import { baseChromiumArgs, findChromium } from '../chromium.ts';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { focusWhenShown } from './app-steps.ts';
import { chromium, expect, type Locator, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// A load cut off from the network is told from one the service worker could serve (blocked by default:
// playwright.config.ts).
test.use({ serviceWorkers: 'allow' });

// The Start card's conductor setup as a new user meets it: what it offers on this machine's software
// WebGPU adapter and without WebGPU, what a failed load suggests, and what switching models does.

let models: ModelServer | undefined;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(async () => {
  await models?.close();
});

async function loadCustom(page: Page, url: string): Promise<void> {
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(url);
  await setup.getByTestId('load-model').click();
}

/**
 * What this machine's software WebGPU adapter is offered, then what a WebGPU load that fails suggests: one
 * Start screen for both (its first load and capability probe take seconds), the test that loads last.
 */
test.describe(() => {
  test.describe.configure({ mode: 'serial' });
  let page: Page;
  test.beforeAll(async ({ browser }) => {
    const context = await browser.newContext();
    await openStepsByDefault(context);
    page = await context.newPage();
    await page.goto('/#/start');
  });
  test.afterAll(async () => {
    await page?.context().close();
  });

  test('SwiftShader: WebGPU is offered only for small models, and every WebGPU model shows its size', async () => {
    const recommendation = page.getByTestId('recommendation');
    await expect(recommendation).toContainText('software renderer');
    await expect(recommendation).toContainText('Recommended: Qwen2.5 0.5B Instruct (GGUF');
    // It used to add "If you still want WebGPU: ... Chose Qwen3 4B (..., 4.2 GB)" on a software renderer (4.23 GB now).
    await expect(recommendation).not.toContainText('Qwen3 4B');
    await expect(recommendation).not.toContainText('4.23 GB');
    const labels = await page
      .getByTestId('conductor-setup')
      .getByLabel('Model', { exact: true })
      .locator('option')
      .allTextContents();
    const webgpu = labels.filter((label) => label.includes('(WebGPU)'));
    expect(webgpu.length).toBeGreaterThan(0);
    for (const label of webgpu) expect(label).toMatch(/ · q4f32_1 · \d+\.\d+ GB GPU memory \(WebGPU\)/);
    expect(labels.join('\n')).not.toMatch(/\b(4B|3B|1\.7B|1\.5B)\b/);
  });

  test("a failed WebGPU load shows the engine's own suggestions: the CPU engine, then try again", async () => {
    const setup = page.getByTestId('conductor-setup');
    const select = setup.getByLabel('Model', { exact: true });
    const webgpu = (await select.locator('option').allTextContents()).find((l) => l.includes('(WebGPU)'));
    await select.selectOption({ label: webgpu! });
    // No network: the engine's code (not precached) and the model cannot be fetched: a ModelFetchError.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.context().setOffline(true);
    await setup.getByTestId('load-model').click();
    const error = page.getByTestId('model-error');
    await expect(error).toBeVisible({ timeout: 45_000 });
    await expect(error).toHaveAttribute('data-suggestion', 'cpu');
    await expect(error.getByTestId('hint-cpu')).toContainText('Use the CPU engine instead');
    await expect(error.getByTestId('hint-retry')).toBeVisible();
    await expect(error.getByRole('button', { name: 'Use the CPU engine' })).toBeVisible();
    await expect(error.getByRole('button', { name: 'Try again' })).toBeVisible();
    // Not the old hard-coded hint, which offered a smaller model for a download failure.
    await expect(error).not.toContainText('smaller model');
  });
});

test('without WebGPU the reason appears once on the Start screen, not twice', async ({ baseURL }) => {
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const page = await browser.newPage();
    await openStepsByDefault(page.context());
    await page.goto(`${baseURL}/#/start`);
    const alert = page.getByTestId('webgpu-unavailable');
    await expect(alert).toBeVisible();
    await expect(page.getByTestId('recommendation')).toContainText('No WebGPU here, so the CPU engine');
    const message = ((await alert.textContent()) ?? '').replace(/^WebGPU is unavailable:\s*/, '').trim();
    expect(message.length).toBeGreaterThan(20);
    const screen = (await page.getByTestId('start-screen').textContent()) ?? '';
    expect(screen.split(message).length - 1).toBe(1);
  } finally {
    await browser.close();
  }
});

test('switching models says the loaded one is unloaded first and asks; keeping it leaves it loaded', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto('/#/start');
  await loadCustom(page, models!.url);
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  const setup = page.getByTestId('conductor-setup');
  // The loaded model is selected: nothing to load.
  await expect(setup.getByTestId('load-model')).toHaveCount(0);

  await setup.getByLabel(/Model URL/).fill(`${models!.url}?copy=2`);
  const load = setup.getByTestId('load-model');
  await expect(load).toHaveText('Switch to this model…');
  // The question has focus from the moment it is shown, before a frame draws it.
  const focusedOnShow = await focusWhenShown(page, 'switch-confirm');
  await load.click();
  const confirm = page.getByTestId('switch-confirm');
  await expect(confirm).toContainText('is unloaded first');
  expect(await focusedOnShow()).toBe('confirm-switch');
  await expect(page.getByTestId('confirm-switch')).toBeFocused();
  await page.getByTestId('keep-model').click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');
  const downloads = models!.downloads();

  await setup.getByTestId('load-model').click();
  await page.getByTestId('confirm-switch').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  expect(models!.downloads()).toBe(downloads + 1);
});

/**
 * The failed-load tests all look at the same failure (a model file that is not there), so one page loads it
 * once and each test checks its part; the one that changes the page (choosing another model) runs last.
 * A failing test restarts the worker, which loads it again for the tests after it.
 */
test.describe(() => {
  let page: Page;
  let error: Locator;
  test.beforeAll(async ({ browser }, testInfo) => {
    const context = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
    await openStepsByDefault(context);
    page = await context.newPage();
    await page.goto('/#/start');
    await loadCustom(page, models!.url.replace('tiny.gguf', 'missing.gguf'));
    error = page.getByTestId('model-error');
    await expect(error).toBeVisible({ timeout: 45_000 });
  });
  test.afterAll(async () => {
    await page?.context().close();
  });

  test('a failed CPU-engine load suggests trying again, not the CPU engine it already is', async () => {
    await expect(error).toHaveAttribute('data-suggestion', /^(retry|pick-model)$/);
    await expect(error.getByTestId('hint-cpu')).toHaveCount(0);
    await expect(error.getByTestId(/^hint-/).first()).toBeVisible();
  });

  test('a failed load offers Try again once: the alert’s button, not also its sentence and the load button', async () => {
    const setup = page.getByTestId('conductor-setup');
    await expect(setup.getByRole('button', { name: 'Try again' })).toHaveCount(1);
    expect(((await setup.textContent()) ?? '').split('Try again').length - 1).toBe(1);
    await expect(setup.getByTestId('load-model')).toHaveCount(0);
  });

  test('after a failed load the header says so in a few words, on one line with the nav', async () => {
    const message = ((await error.locator('p').first().textContent()) ?? '').replace(
      /^Could not load [^:]+: /,
      '',
    );
    expect(message.length).toBeGreaterThan(20);
    const status = page.getByTestId('conductor-status');
    await expect(status).toHaveAttribute('data-state', 'error');
    await expect(status).toHaveText('Conductor: could not load missing.gguf');
    const tops = await page
      .locator('.app-nav li')
      .evaluateAll((items) => items.map((item) => Math.round(item.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
  });

  test('choosing another model after a failed load clears the old error', async () => {
    const setup = page.getByTestId('conductor-setup');
    await setup.getByLabel('Model', { exact: true }).selectOption({ index: 0 });
    await expect(error).toHaveCount(0);
    await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'none');
    await expect(setup.getByTestId('load-model')).toBeVisible();
  });
});

test('a download shows one time-left figure, not the engine’s and the page’s', async ({ page }) => {
  // A slow host (3 s here), so several progress texts with a time left are seen while the bytes come in.
  const slow = await startModelServer({ pieces: 20, pieceDelayMs: 150 });
  try {
    await page.goto('/#/start');
    await loadCustom(page, slow.url);
    const progress = page.getByTestId('model-progress');
    await expect(progress).toBeVisible({ timeout: 30_000 });
    const seen: string[] = [];
    // Time left is shown only while bytes are counted (below 100%): once the file is in, what follows
    // (starting llama.cpp) has no figure to double, so the test stops there rather than at the end of the load.
    const downloaded = page.locator('[data-testid="model-progress"][data-percent="100"]');
    const error = page.getByTestId('model-error');
    const done = page.getByTestId('model-ready').or(error).or(downloaded);
    while ((await done.count()) === 0) {
      const text = await progress.textContent({ timeout: 1000 }).catch(() => undefined);
      if (text) seen.push(text);
      await page.waitForTimeout(100);
    }
    // The whole file came in: not stopped by a failed download.
    await expect(error).toHaveCount(0);
    await expect(page.getByTestId('model-ready').or(downloaded)).toBeVisible();
    const withTime = seen.filter((text) => /left/.test(text));
    expect(withTime.length).toBeGreaterThan(0);
    for (const text of withTime) expect(text.match(/left/g)?.length, text).toBe(1);
  } finally {
    await slow.close();
  }
});
