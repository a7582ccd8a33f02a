import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import {
  installPromptApiDouble,
  type PromptApiDoubleConfig,
  type PromptApiDoubleRecord,
} from '../fixtures/prompt-api-double.ts';
import type { ConductorHarness } from '../pages/conductor.ts';
import { logErrors } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';

// The browser's own model (Chrome's Prompt API) behind the real bridge and the real conductor thread, with
// Chrome's `LanguageModel` replaced by a double that follows its documentation
// (test/fixtures/prompt-api-double.ts), installed before any of the page's code runs: the lowest layer,
// as web-llm's tests replace only the GPU below it. The Chromium under test has a LanguageModel of its own,
// which says `unavailable` (no model on this machine): the Start test of that state uses it.

declare global {
  var __conductor: ConductorHarness;
  var __promptApiDouble: PromptApiDoubleRecord;
}

let models: ModelServer;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(async () => {
  await models?.close();
});

const pool = [
  { id: 'w1', label: 'Fast model', strengths: 'quick short answers', costTier: 'low' as const },
  { id: 'w2', label: 'Strong model', strengths: 'hard reasoning and math', costTier: 'high' as const },
];
const planRequest = (question: string) => ({
  question,
  pool,
  mode: 'conductor' as const,
  maxSteps: 3,
  maxDepth: 0,
  maxTokens: 400,
  temperature: 0,
});

async function harnessWith(page: Page, config: PromptApiDoubleConfig) {
  logErrors(page);
  await page.addInitScript(installPromptApiDouble, config);
  await page.goto('/test/pages/conductor.html');
  await expect(page.locator('#status')).toHaveAttribute('data-ready', 'true');
}

const record = (page: Page) =>
  page.evaluate(() => JSON.parse(JSON.stringify(globalThis.__promptApiDouble)) as PromptApiDoubleRecord);

type Response = {
  plan: { steps: { worker: string; task: string; sees: unknown }[] };
  stats: { promptTokens: number; cachedPromptTokens?: number };
  handedOver?: { to: { engine: string }; reason: string };
};

test.describe.configure({ mode: 'serial' });

test('plans under the schema, each step streamed before the end; a second question is prompted on a clone of the kept prefix', async ({
  page,
}) => {
  await harnessWith(page, { chunkDelayMs: 15 });
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  const first = await page.evaluate((r) => globalThis.__conductor.plan(r), planRequest('Add two numbers.'));
  expect(first.error).toBeUndefined();
  const response = first.response as Response;
  expect(response.plan.steps.length).toBeGreaterThanOrEqual(1);
  for (const step of response.plan.steps) expect(['w1', 'w2']).toContain(step.worker);
  const steps = first.steps.filter((s) => s.event.kind === 'step');
  expect(steps.map((s) => (s.event.kind === 'step' ? s.event.step : undefined))).toEqual(response.plan.steps);
  expect(steps[0]!.t).toBeLessThan(first.tokens.at(-1)!.t);

  const second = await page.evaluate(
    (r) => globalThis.__conductor.plan(r),
    planRequest('Why is the sky blue?'),
  );
  expect(second.error).toBeUndefined();
  const stats = (second.response as Response).stats;
  expect(stats.cachedPromptTokens).toBeGreaterThan(stats.promptTokens / 2);
  const seen = await record(page);
  expect(seen.creates).toHaveLength(1);
  expect(seen.prompts.map((p) => [p.input, p.constrained, p.cloned])).toEqual([
    ['Add two numbers.', true, true],
    ['Why is the sky blue?', true, true],
  ]);
});

test('cancel stops the browser model, and the next plan works', async ({ page }) => {
  await harnessWith(page, { chunkDelayMs: 40 });
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  const trace = await page.evaluate(
    (r) => globalThis.__conductor.plan(r, 3),
    planRequest('Add two numbers.'),
  );
  expect(trace.error?.name).toBe('PlanCancelled');
  expect(trace.tokens.length).toBeLessThan(8);
  expect(await page.evaluate(() => globalThis.__conductor.restartCount())).toBe(0);
  const next = await page.evaluate((r) => globalThis.__conductor.plan(r), planRequest('Add two numbers.'));
  expect(next.ok).toBe(true);
});

test('a question over its context window moves to the CPU engine the user allowed, and the plan says why', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await harnessWith(page, { contextWindow: 500 });
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  await page.evaluate((url) => globalThis.__conductor.allowFallback(url), models.url);
  const long = `Summarise this: ${'lorem ipsum dolor sit amet '.repeat(40)}`;
  const trace = await page.evaluate((r) => globalThis.__conductor.plan(r), planRequest(long));
  expect(trace.error).toBeUndefined();
  const response = trace.response as Response;
  // The tiny model in the real CPU engine wrote it (its vocabulary is characters: the question stays short).
  expect(response.handedOver?.to.engine).toBe('wllama');
  expect(models.downloads()).toBeGreaterThanOrEqual(1);
  const restart = trace.steps.find((s) => s.event.kind === 'restart')?.event;
  expect(restart?.kind === 'restart' && restart.reason).toMatch(
    /do not fit Chrome's built-in model .*it takes 500\. Planning moves to tiny on the CPU/,
  );
  expect((await record(page)).prompts).toEqual([]);
});

test('without an engine allowed next, a question over the window fails with a clear error', async ({
  page,
}) => {
  await harnessWith(page, { contextWindow: 500 });
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  const long = `Summarise this: ${'lorem ipsum dolor sit amet '.repeat(40)}`;
  const trace = await page.evaluate((r) => globalThis.__conductor.plan(r), planRequest(long));
  expect(trace.error?.name).toBe('InputTooLongError');
  expect(trace.error?.message).toMatch(/they need \d+ tokens and it takes 500/);
});

test('a session Chrome ends mid-plan: the steps streamed stand, a new session writes the rest', async ({
  page,
}) => {
  await harnessWith(page, { chunkDelayMs: 10, loseSessionAfterChunks: 20 });
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  const trace = await page.evaluate((r) => globalThis.__conductor.plan(r), planRequest('Add two numbers.'));
  expect(trace.error).toBeUndefined();
  const response = trace.response as Response;
  const restart = trace.steps.find((s) => s.event.kind === 'restart')?.event;
  expect(restart?.kind === 'restart' && restart.reason).toContain('Trying again in a new session');
  const streamed = trace.steps.flatMap((s) => (s.event.kind === 'step' ? [s.event.step] : []));
  expect(streamed).toEqual(response.plan.steps);
  expect((await record(page)).creates).toHaveLength(2);
});

test('a language it does not read, without an engine allowed next, fails saying which languages it reads', async ({
  page,
}) => {
  await harnessWith(page, {});
  await page.evaluate(() => globalThis.__conductor.loadBrowserModel());
  const trace = await page.evaluate(
    (r) => globalThis.__conductor.plan(r),
    planRequest('Почему небо голубое?'),
  );
  expect(trace.error?.name).toBe('UnsupportedLanguageError');
  expect(trace.error?.message).toContain('English, Spanish and Japanese');
});

// The Start screen: what it offers for each availability state, and that a download waits for a click.

test("Start: this Chromium's own LanguageModel says unavailable: not offered, and says why; without the API nothing is said", async ({
  page,
}) => {
  // The real Prompt API of the Chromium under test: it has no model on this machine.
  await page.goto('/#/start');
  expect(await page.evaluate(() => 'LanguageModel' in globalThis)).toBe(true);
  await expect(page.getByTestId('browser-model-unavailable')).toContainText('unavailable on this device');
  const labels = await page
    .getByTestId('conductor-setup')
    .getByLabel('Model', { exact: true })
    .locator('option')
    .allTextContents();
  expect(labels.join('\n')).not.toContain("Chrome's built-in model");

  const plain = await page.context().newPage();
  await plain.addInitScript(() => {
    delete (globalThis as { LanguageModel?: unknown }).LanguageModel;
  });
  await plain.goto('/#/start');
  await expect(plain.getByTestId('recommendation')).toBeVisible();
  await expect(plain.getByTestId('browser-model-unavailable')).toHaveCount(0);
});

test('Start: a downloadable model is offered with its limits, downloaded only on the click, then plans (Compare planners runs on it)', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  await page.addInitScript(installPromptApiDouble, { availability: 'downloadable' as const });
  await page.goto('/#/start');
  const setup = page.getByTestId('conductor-setup');
  const select = setup.getByLabel('Model', { exact: true });
  const option = select.locator('option', { hasText: "Chrome's built-in model" });
  await expect(option).toContainText('Chrome downloads it first');
  await select.selectOption({ label: (await option.textContent()) ?? '' });
  const info = page.getByTestId('browser-model-info');
  await expect(info).toContainText('Baton downloads nothing');
  await expect(info).toContainText('English, Spanish and Japanese');
  await expect(info).toContainText('22 GB');
  // Offered, never started: nothing was created, so Chrome downloaded nothing.
  expect((await record(page)).creates).toEqual([]);

  await page.getByTestId('browser-model-fallback').check();
  await setup.getByRole('button', { name: "Download Chrome's model" }).click();
  await expect(page.getByTestId('model-progress')).toBeVisible();
  await expect(page.getByTestId('model-ready')).toContainText("Chrome's built-in model", { timeout: 30_000 });
  const seen = await record(page);
  expect(seen.creates[0]).toEqual({ initialPrompts: 0, downloaded: true });

  // Compare planners plans with whatever engine is loaded: here the browser's model, nothing sent.
  await page.goto('/#/bench');
  const section = page.getByTestId('compare-planners');
  await section.getByLabel('Questions').selectOption('3');
  const run = section.getByRole('button', { name: /^Run on / });
  await expect(run).toContainText("Chrome's built-in model");
  await run.click();
  await expect(section.getByTestId('compare-planners-progress')).toHaveAttribute('data-state', 'done', {
    timeout: 120_000,
  });
  await expect(section.getByTestId('compare-planners-results').locator('tbody tr')).toHaveCount(1);
  expect((await record(page)).prompts.length).toBeGreaterThanOrEqual(3);
});
