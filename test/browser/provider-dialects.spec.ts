import { priceOf } from '../../src/executor/spend.ts';
import { formatCost } from '../../src/shared/format-cost.ts';
import type { Plan } from '../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import type { DialectMode } from '../provider/dialects/index.ts';
import { openrouterCost } from '../provider/dialects/index.ts';
import {
  countPromptTokens,
  type RecordedRequest,
  startProvider,
  type TestProvider,
  tokenize,
} from '../provider/server.ts';
import { logErrors } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// One run whose pool has a worker of each dialect (every OpenAI-compatible one, and Anthropic's native
// Messages API), each on a test provider of its own (its own origin and key) that speaks that provider's
// API as its docs say, under strict CORS: the run completes through the app's own run state, egress and
// step cards (test/pages/dialects.tsx).

/** Reasoning a DeepSeek reasoner streams before its answer; markup in it must stay text. */
const THOUGHT = 'Paris is the capital. <b>Check</b> it twice.';

/** A dialect of the table: the test provider answers `/v1/messages` as Anthropic does in any mode. */
type Mode = DialectMode | 'anthropic';

interface DialectWorker {
  /** Also the catalog preset id, which picks the dialect. */
  mode: Mode;
  model: string;
  key: string;
}

const WORKERS: DialectWorker[] = [
  { mode: 'openai', model: 'upper', key: 'sk-openai-1111111111111111' },
  { mode: 'gemini', model: 'echo', key: 'AIzaGemini22222222222222222' },
  { mode: 'openrouter', model: 'echo', key: 'sk-or-v1-3333333333333333' },
  { mode: 'groq', model: 'upper', key: 'gsk_groq_4444444444444444' },
  { mode: 'mistral', model: 'echo', key: 'mistral55555555555555555' },
  { mode: 'deepseek', model: 'thinker', key: 'sk-deepseek-666666666666' },
  { mode: 'xai', model: 'reverse', key: 'xai-77777777777777777777' },
  { mode: 'anthropic', model: 'reverse', key: 'sk-ant-api03-8888888888888888' },
];

const providers = new Map<Mode, TestProvider>();

test.beforeAll(async () => {
  for (const w of WORKERS) {
    providers.set(
      w.mode,
      await startProvider({
        dialect: w.mode === 'anthropic' ? 'openai' : w.mode,
        cors: 'strict',
        apiKey: w.key,
        models: [
          { id: 'thinker', behaviour: { kind: 'fixed', text: 'Paris.' }, reasoning: { text: THOUGHT } },
        ],
      }),
    );
  }
});
test.afterAll(async () => {
  await Promise.all([...providers.values()].map((p) => p.close()));
});

function providerOf(mode: Mode): TestProvider {
  const provider = providers.get(mode);
  if (!provider) throw new Error(`no ${mode} provider`);
  return provider;
}

/** The OpenRouter worker is priced far above what its provider reports, so the two cannot be confused. */
const OPENROUTER_TABLE_PRICE = { inputPerM: 300, outputPerM: 900 };

function poolOf(): WorkerSpec[] {
  return WORKERS.map((w) => ({
    id: `w-${w.mode}`,
    label: `${w.mode} worker`,
    strengths: 'test',
    providerId: w.mode,
    baseURL: providerOf(w.mode).baseURL,
    model: w.model,
    maxConcurrency: 2,
    enabled: true,
    price: w.mode === 'openrouter' ? OPENROUTER_TABLE_PRICE : { inputPerM: 1, outputPerM: 2 },
  }));
}

/** One step per worker, side by side, then the OpenAI worker reads them all. */
const PLAN: Plan = {
  thought: 'Ask every provider, then combine.',
  steps: [
    ...WORKERS.map((w) => ({ worker: `w-${w.mode}`, task: 'What is the capital of France?', sees: [] })),
    { worker: 'w-openai', task: 'Combine the answers.', sees: 'all' },
  ],
};

/** `window.__dialects` of test/pages/dialects.tsx (a .tsx module this config cannot import types from). */
interface DialectsHarness {
  run(
    keys: { providerId: string; baseURL: string; key: string }[],
    pool: WorkerSpec[],
    plan: Plan,
  ): Promise<{ status: string; failed: { index: number; reason: string }[] }>;
}

const posts = (mode: Mode): RecordedRequest[] => providerOf(mode).requests.filter((r) => r.method === 'POST');

async function runAll(page: Page) {
  logErrors(page);
  await page.goto('/test/pages/dialects.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const keys = WORKERS.map((w) => ({ providerId: w.mode, baseURL: providerOf(w.mode).baseURL, key: w.key }));
  return page.evaluate(
    ([k, pool, plan]) =>
      (globalThis as unknown as { __dialects: DialectsHarness }).__dialects.run(k, pool, plan),
    [keys, poolOf(), PLAN] as const,
  );
}

// One run for the file, on one page: each test checks its part of the same run (the requests each provider
// got, OpenRouter's cost, DeepSeek's reasoning), which each used to make again on a page of its own.
let page: Page;
let result: Awaited<ReturnType<typeof runAll>>;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
  result = await runAll(page);
});
test.afterAll(() => page?.close());

test('a pool with a worker of each dialect completes under strict CORS, each speaking its own API', async () => {
  expect(result).toEqual({ status: 'done', failed: [] });
  for (let i = 0; i < PLAN.steps.length; i++) {
    await expect(page.getByTestId(`step-card-${i}`)).toHaveAttribute('data-state', 'done');
  }

  // Mistral, OpenRouter and Anthropic get no stream_options; the rest ask for usage.
  for (const w of WORKERS) {
    const bodies = posts(w.mode).map((r) => r.body as Record<string, unknown>);
    expect(bodies.length, w.mode).toBeGreaterThan(0);
    for (const body of bodies) {
      if (w.mode === 'mistral' || w.mode === 'openrouter' || w.mode === 'anthropic')
        expect(body, w.mode).not.toHaveProperty('stream_options');
      else expect(body, w.mode).toMatchObject({ stream_options: { include_usage: true } });
    }
  }

  // Anthropic got native Messages requests, with its browser opt-in header and its key in x-api-key.
  for (const r of posts('anthropic')) {
    expect(r.path).toBe('/v1/messages');
    expect(r.headers).toMatchObject({
      'anthropic-dangerous-direct-browser-access': 'true',
      'x-api-key': WORKERS.find((w) => w.mode === 'anthropic')?.key,
    });
    expect(r.body).toMatchObject({ stream: true, max_tokens: expect.any(Number) });
  }

  // Each key reached its own origin only, and no SDK header reached any (Gemini's preflight would fail).
  for (const w of WORKERS) {
    const seen = providerOf(w.mode).requests.map((r) => JSON.stringify(r.headers));
    for (const other of WORKERS) {
      const sent = seen.some((headers) => headers.includes(other.key));
      expect(sent, `${other.mode}'s key at ${w.mode}`).toBe(other === w);
    }
    for (const r of providerOf(w.mode).requests) {
      expect(Object.keys(r.headers).filter((h) => h.startsWith('x-stainless-'))).toEqual([]);
    }
  }
});

test("OpenRouter's reported cost is shown, not the price table's", async () => {
  expect(result.status).toBe('done');
  const index = WORKERS.findIndex((w) => w.mode === 'openrouter');
  const body = posts('openrouter')[0]?.body as { messages: { role: string; content: string }[] };
  const prompt = countPromptTokens(body.messages);
  const completion = tokenize('What is the capital of France?').length;
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const reported = formatCost(openrouterCost(usage));
  const table = formatCost(
    priceOf({ price: OPENROUTER_TABLE_PRICE } as WorkerSpec, {
      promptTokens: prompt,
      completionTokens: completion,
    }),
  );
  expect(reported).not.toBe(table);
  const metrics = page.getByTestId(`step-metrics-${index}`);
  await expect(metrics).toContainText(`${prompt} in · ${completion} out`);
  await expect(metrics).toContainText(reported);
  await expect(metrics).not.toContainText(table);
});

test("DeepSeek's reasoning shows collapsed, counted, as plain text, apart from the answer", async () => {
  expect(result.status).toBe('done');
  const index = WORKERS.findIndex((w) => w.mode === 'deepseek');
  const card = page.getByTestId(`step-card-${index}`);
  const reasoning = page.getByTestId(`step-reasoning-${index}`);
  await expect(reasoning).toBeVisible();
  await expect(reasoning).not.toHaveAttribute('open', '');
  await expect(reasoning.locator('summary')).toHaveText(`Reasoning · ${tokenize(THOUGHT).length} tokens`);
  await reasoning.locator('summary').click();
  await expect(reasoning.locator('p')).toHaveText(THOUGHT);
  // Markup in it is text, not an element.
  await expect(reasoning.locator('b')).toHaveCount(0);
  // The answer holds the answer only.
  await expect(card.getByTestId('answer')).not.toContainText('Check');
  await expect(card).toContainText('Paris.');
  // The step that read every answer was not sent the reasoning.
  const last = posts('openai').at(-1)?.body as { messages: { content: string }[] };
  expect(JSON.stringify(last.messages)).toContain('Paris.');
  expect(JSON.stringify(last.messages)).not.toContain('Check');
});
