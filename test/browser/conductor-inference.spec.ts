import { validatePlan } from '../../src/shared/plan/index.ts';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import type { ConductorHarness } from '../pages/conductor.ts';
import { type Browser, expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

/** The harness page's handle (set by test/pages/conductor.ts). */
declare global {
  var __conductor: ConductorHarness;
}

// Real inference: a tiny random-weight GGUF, generated now, served over HTTP, loaded by wllama inside the
// conductor thread, driven through the real bridge on the harness page.

let models: ModelServer;
/** The same model without the bias that closes strings early: its plans run on until the length limits. */
let rambling: ModelServer;
test.beforeAll(async () => {
  models = await startModelServer();
  rambling = await startModelServer({ logitBias: { '\n': -3, '\t': -3, ' ': -3 } });
});
test.afterAll(async () => {
  for (const page of shared.values()) await page.close();
  await models?.close();
  await rambling?.close();
});

const pool = [
  { id: 'w1', label: 'Fast model', strengths: 'quick short answers', costTier: 'low' as const },
  { id: 'w2', label: 'Coder', strengths: 'writes and fixes code', costTier: 'medium' as const },
  { id: 'w3', label: 'Strong model', strengths: 'hard reasoning and math', costTier: 'high' as const },
];

async function openHarness(page: Page, query = '') {
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log('[page]', msg.text());
  });
  await page.goto(`/test/pages/conductor.html${query}`);
  await expect(page.locator('#status')).toHaveAttribute('data-ready', 'true');
}

test.describe.configure({ mode: 'serial' });

/**
 * One harness page per bridge setting, shared by the tests that use it: their subject is what the thread and
 * its loaded model do, not a page's first load, and each page starts wllama's 10 MB wasm in a fresh thread
 * (5-7 s here), which every test paid again. A test loads the model it uses itself (a no-op when that one is
 * loaded already) and counts restarts from where it starts, so it also runs alone; tests on the same page
 * and model come one after another, so the model loads once for them.
 */
const shared = new Map<string, Page>();
async function sharedHarness(browser: Browser, baseURL: string | undefined, query = ''): Promise<Page> {
  let page = shared.get(query);
  if (!page) {
    page = await browser.newPage({ baseURL });
    await openStepsByDefault(page.context());
    await openHarness(page, query);
    shared.set(query, page);
  }
  return page;
}

/**
 * For the tests that kill or hard-stop the thread. A thread killed from outside sends no event: the bridge
 * finds it by a ping that goes unanswered; the app waits 5 s for that answer, 1.5 s here finds the dead thread
 * just the same, 3.5 s sooner. A 1 ms cancel grace period: a soft stop cannot win, so a cancel must kill and
 * restart the thread (none of these tests cancels otherwise).
 */
const FAST_STOPS = '?pingTimeout=1500&cancelGrace=1';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const question = 'Write a short python function that adds two numbers, then check it.';
const tinyPlan = {
  question,
  pool,
  mode: 'conductor' as const,
  maxSteps: 3,
  maxDepth: 0,
  maxTaskLength: 40,
  maxThoughtLength: 40,
  maxTokens: 400,
  // Greedy decoding: the weights are seeded, so the plan is the same on every run and the test cannot flake
  // on an unlucky sample (random weights write semantically invalid plans often enough to need repairs).
  temperature: 0,
};

test('plans with the tiny model in the thread: schema-valid, streamed token by token, steps before the end', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL);
  const load = await page.evaluate((url) => globalThis.__conductor.load(url, 1), models.url);
  expect(models.downloads()).toBe(1);
  expect(load.progress.length).toBeGreaterThan(0);

  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request), tinyPlan);
  expect(trace.error).toBeUndefined();
  expect(trace.ok).toBe(true);
  const response = trace.response as {
    plan: { steps: { worker: string; task: string; sees: unknown }[] };
    raw: string;
    fallback?: unknown;
    repaired?: { error: string };
    stats: { completionTokens: number; decodeTokensPerSec?: number };
  };
  console.log('plan raw:', response.raw, JSON.stringify(response.stats), response.repaired ?? '');
  // The model's own output, not the fallback; it parses as JSON and every worker is from the pool.
  expect(response.fallback).toBeUndefined();
  // (A repair writes only the steps after those its rejected attempt already streamed, so `raw` may hold
  // fewer steps than the plan.)
  const parsed = JSON.parse(response.raw) as { steps: { worker: string }[] };
  expect(parsed.steps.length).toBeLessThanOrEqual(response.plan.steps.length);
  expect(response.plan.steps.length).toBeGreaterThanOrEqual(1);
  expect(response.plan.steps.length).toBeLessThanOrEqual(3);
  for (const step of response.plan.steps) expect(['w1', 'w2', 'w3']).toContain(step.worker);
  // Token by token: many callbacks, and together they end with the raw output (an invalid first attempt,
  // if any, was repaired: its tokens come first).
  expect(trace.tokens.length).toBeGreaterThan(10);
  expect(trace.tokens.map((t) => t.text).join('')).toMatch(new RegExp(`${escapeRegExp(response.raw)}$`));
  // Steps stream as soon as each object closes: at least one arrived while tokens were still coming.
  const stepEvents = trace.steps.filter((s) => s.event.kind === 'step');
  expect(stepEvents.length).toBeGreaterThanOrEqual(1);
  expect(stepEvents[0]!.t).toBeLessThan(trace.tokens.at(-1)!.t);
  expect(stepEvents[0]!.t).toBeLessThan(trace.settledAt);
  // Everything streamed is the plan, in order: a rejected attempt's streamed steps stand and its repair
  // continues after them, so no step went out that the plan does not have.
  const streamedSteps = stepEvents.flatMap((s) => (s.event.kind === 'step' ? [s.event.step] : []));
  expect(streamedSteps).toEqual(response.plan.steps);
  if (response.repaired) expect(trace.steps.some((s) => s.event.kind === 'restart')).toBe(true);
});

// Every self-check failed with "Failed to format input: unordered_map::at: key not found"
// on answers that were not ASCII: the tiny model had no byte tokens to fall back to.
test('the tiny model reads text that is not ASCII, and writes only valid text', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), models.url);
  const accented = 'Écris une fonction — « naïve » — qui additionne deux nombres ✓ 日本語, then check it.';
  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request), {
    ...tinyPlan,
    question: accented,
  });
  expect(trace.error).toBeUndefined();
  expect(trace.ok).toBe(true);
  const chat = await page.evaluate(
    (text) => globalThis.__conductor.chat(text, 40),
    `Check this answer: “${accented}” — is it right? Ünïcödé ünd émojis 🙂.`,
  );
  expect(chat.error).toBeUndefined();
  const written = chat.tokens.map((t) => t.text).join('');
  expect(written.length).toBeGreaterThan(0);
  expect(written).not.toContain('\uFFFD');
});

test('a thread killed while idle is replaced: the next plan reloads the model (from cache) and works', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL, FAST_STOPS);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), models.url);
  const restarts = await page.evaluate(() => globalThis.__conductor.restartCount());
  const downloads = models.downloads();
  expect(await page.evaluate(() => globalThis.__conductor.terminateThread())).toBe(true);
  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request), tinyPlan);
  expect(trace.error).toBeUndefined();
  expect(trace.ok).toBe(true);
  expect(await page.evaluate(() => globalThis.__conductor.restartCount())).toBe(restarts + 1);
  // The restarted thread read the model from Cache Storage instead of downloading it again.
  expect(models.downloads()).toBe(downloads);
});

test('a thread killed during a plan fails that plan as ThreadCrashed, and the next plan works', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL, FAST_STOPS);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), rambling.url);
  const restarts = await page.evaluate(() => globalThis.__conductor.restartCount());
  const long = { ...tinyPlan, maxTaskLength: 600, maxThoughtLength: 800, maxTokens: 2000 };
  const trace = await page.evaluate(async (request) => {
    const h = globalThis.__conductor;
    const running = h.plan(request);
    // Kill it while it writes (the rambling model writes for many seconds on this machine).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    h.terminateThread();
    return running;
  }, long);
  expect(trace.ok).toBe(false);
  expect(trace.error?.name).toBe('ThreadCrashed');
  const next = await page.evaluate((request) => globalThis.__conductor.plan(request), tinyPlan);
  expect(next.error).toBeUndefined();
  expect(next.ok).toBe(true);
  expect(await page.evaluate(() => globalThis.__conductor.restartCount())).toBe(restarts + 1);
});

test('an uncaught error in the thread replaces it, and the next plan works', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), models.url);
  const restarts = await page.evaluate(() => globalThis.__conductor.restartCount());
  await page.evaluate(() => globalThis.__conductor.crashThread());
  await expect.poll(() => page.evaluate(() => globalThis.__conductor.restartCount())).toBe(restarts + 1);
  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request), tinyPlan);
  expect(trace.error).toBeUndefined();
  expect(trace.ok).toBe(true);
});

test('a cancel the thread does not honour in time becomes a hard stop (restart)', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // The 1 ms grace period (FAST_STOPS): the soft stop cannot win, so the bridge must kill and restart the thread.
  const page = await sharedHarness(browser, baseURL, FAST_STOPS);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), rambling.url);
  const restarts = await page.evaluate(() => globalThis.__conductor.restartCount());
  const long = { ...tinyPlan, maxTaskLength: 600, maxThoughtLength: 800, maxTokens: 2000 };
  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request, 3), long);
  expect(trace.error?.name).toBe('PlanCancelled');
  expect(trace.error?.message).toMatch(/restarted/);
  expect(await page.evaluate(() => globalThis.__conductor.restartCount())).toBe(restarts + 1);
  const next = await page.evaluate((request) => globalThis.__conductor.plan(request), {
    ...long,
    maxTokens: 200,
    maxTaskLength: 40,
    maxThoughtLength: 40,
  });
  expect(next.error).toBeUndefined();
  expect(next.ok).toBe(true);
});

test('a second question to the same pool prefills only itself: llama.cpp keeps the prompt prefix, also across a chat', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const page = await sharedHarness(browser, baseURL);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), models.url);
  type Stats = { promptTokens: number; cachedPromptTokens?: number };
  const statsOf = (trace: { ok: boolean; response?: unknown }) => {
    expect(trace.ok).toBe(true);
    return (trace.response as { stats: Stats }).stats;
  };
  const otherPool = pool.map((w) => ({ ...w, label: `${w.label} B` }));
  const first = statsOf(
    await page.evaluate((request) => globalThis.__conductor.plan(request), { ...tinyPlan, pool: otherPool }),
  );
  const second = statsOf(
    await page.evaluate((request) => globalThis.__conductor.plan(request), {
      ...tinyPlan,
      pool: otherPool,
      question: 'Explain why the sky is blue.',
    }),
  );
  // The system prompt, the few-shot plans and the pool were kept; only the new question was prefilled.
  expect(first.cachedPromptTokens ?? 0).toBeLessThan(first.promptTokens / 2);
  expect(second.cachedPromptTokens).toBeGreaterThan(second.promptTokens * 0.8);
  // The on-device worker answering in between does not cost the planner its prefix.
  expect((await page.evaluate(() => globalThis.__conductor.chat('Say hello.', 8))).ok).toBe(true);
  const third = statsOf(
    await page.evaluate((request) => globalThis.__conductor.plan(request), {
      ...tinyPlan,
      pool: otherPool,
      question: 'Name three colours.',
    }),
  );
  expect(third.cachedPromptTokens).toBeGreaterThan(third.promptTokens * 0.8);
});

test('cancel during generation stops the tokens within 500 ms and the next plan works', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const page = await sharedHarness(browser, baseURL);
  await page.evaluate((url) => globalThis.__conductor.load(url, 1), rambling.url);
  const restarts = await page.evaluate(() => globalThis.__conductor.restartCount());
  const long = { ...tinyPlan, maxTaskLength: 600, maxThoughtLength: 800, maxTokens: 2000 };
  const trace = await page.evaluate((request) => globalThis.__conductor.plan(request, 5), long);
  expect(trace.ok).toBe(false);
  expect(trace.error?.name).toBe('PlanCancelled');
  const cancelledAt = trace.cancelledAt!;
  const lastToken = trace.tokens.at(-1)!.t;
  console.log(
    `cancel: ${trace.tokens.length} tokens, last ${(lastToken - cancelledAt).toFixed(0)} ms and settled ` +
      `${(trace.settledAt - cancelledAt).toFixed(0)} ms after cancel`,
  );
  expect(lastToken - cancelledAt).toBeLessThan(500);
  expect(trace.settledAt - cancelledAt).toBeLessThan(500);
  // A soft stop: the thread was not replaced, and it plans again at once.
  expect(await page.evaluate(() => globalThis.__conductor.restartCount())).toBe(restarts);
  const next = await page.evaluate((request) => globalThis.__conductor.plan(request), tinyPlan);
  expect(next.error).toBeUndefined();
  expect(next.ok).toBe(true);
});

test('constrained decoding writes a self-check only as the last step, whatever the sampler picks', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const page = await sharedHarness(browser, baseURL);
  await page.evaluate((url) => globalThis.__conductor.rawLoad(url, 1), models.url);
  // The thread's own prompt and schema for a conductor plan with self-checks allowed (the default depth),
  // sampled at temperature 1: a random-weight model then picks among the tokens the grammar allows.
  const request = { ...tinyPlan, maxSteps: 4, maxDepth: 2 };
  const options = {
    workerIds: pool.map((w) => w.id),
    maxSteps: request.maxSteps,
    allowSelf: true,
    selfOnlyLast: true,
  };
  const plans: { steps: { worker: string }[] }[] = [];
  for (let seed = 1; seed <= 10; seed++) {
    const { text } = await page.evaluate(([req, s]) => globalThis.__conductor.rawPlan(req, 500, 1, s), [
      request,
      seed,
    ] as const);
    // A plan cut off by the token limit is not JSON; what is judged is every plan the model finished.
    const plan = parsedOrUndefined(text);
    if (!plan) continue;
    plans.push(plan);
    const result = validatePlan(plan, options);
    const misplaced = result.ok
      ? []
      : result.issues.filter((i) => /self-not-last|no-worker-step/.test(i.code));
    expect(misplaced, `seed ${seed}: ${text}`).toEqual([]);
  }
  expect(plans.length).toBeGreaterThanOrEqual(6);
  // The sampler did write self-checks (at the end) and multi-step plans: the rule was put to the test.
  expect(plans.some((p) => p.steps.length > 1 && p.steps.at(-1)?.worker === 'self')).toBe(true);
});

function parsedOrUndefined(text: string): { steps: { worker: string }[] } | undefined {
  try {
    return JSON.parse(text) as { steps: { worker: string }[] };
  } catch {
    return undefined;
  }
}
