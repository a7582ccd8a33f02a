import type { LedgerEntry } from '../../src/egress/ledger.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import type { EgressHarness } from '../pages/egress.ts';
import { countPromptTokens, startProvider, type TestProvider, tokenize } from '../provider/server.ts';
import { sampleRunExport } from './app-fixtures.ts';
import { importRunFile } from './app-steps.ts';
import { expect, type Page, type Request, test } from './app-test.ts';

// An Anthropic worker as the app runs it (egress, vault, ledger, executor, the transport its dialect picks)
// from the app's own cross-origin-isolated page, against the test provider's Anthropic mode under strict
// CORS (test/provider/dialects/anthropic.ts): real preflights through Chromium, real fetch, real streams.
// The catalog's Anthropic preset is pinned to api.anthropic.com, which cannot be reached here, so the
// harness page (test/pages/egress.ts) lets that one preset off its origin; everything else is the app's.

const ANTHROPIC_KEY = 'sk-ant-browser-A-1111111111111111';
const OTHER_KEY = 'sk-browser-B-2222222222222222';
let anthropic: TestProvider;
let other: TestProvider;

test.beforeAll(async () => {
  anthropic = await startProvider({ apiKey: ANTHROPIC_KEY, cors: 'strict' });
  other = await startProvider({ apiKey: OTHER_KEY, cors: 'strict' });
});
test.afterAll(async () => {
  await Promise.all([anthropic.close(), other.close()]);
});
test.beforeEach(() => {
  anthropic.clearRequests();
  other.clearRequests();
});

type Win = { __egress: EgressHarness };

async function open(page: Page) {
  await page.goto('/test/pages/egress.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.evaluate(() => (globalThis as unknown as Win).__egress.setup());
}

async function saveKey(page: Page, providerId: string, baseURL: string, key: string) {
  await page.evaluate(
    ([p, u, k]) => (globalThis as unknown as Win).__egress.saveKey(p!, u!, k!),
    [providerId, baseURL, key],
  );
}

const PRICE = { inputPerM: 3, outputPerM: 15 };

function worker(id: string, providerId: string, baseURL: string, model: string): WorkerSpec {
  return {
    id,
    label: id,
    strengths: 'test',
    providerId,
    baseURL,
    model,
    maxConcurrency: 2,
    enabled: true,
    price: PRICE,
  };
}

const originOf = (url: string) => new URL(url).origin;

test('a run with an Anthropic worker completes over the native Messages API, its key only to its origin', async ({
  page,
  baseURL,
}) => {
  const captured: Request[] = [];
  page.on('request', (request) => captured.push(request));
  await open(page);
  await saveKey(page, 'anthropic', anthropic.baseURL, ANTHROPIC_KEY);
  await saveKey(page, 'vllm', other.baseURL, OTHER_KEY);
  const pool = [
    { ...worker('claude', 'anthropic', anthropic.baseURL, 'echo'), systemPrompt: 'Answer briefly.' },
    worker('local', 'vllm', other.baseURL, 'upper'),
  ];
  const plan = {
    thought: 'answer, shout, then check',
    steps: [
      { worker: 'claude', task: 'Answer the question.', sees: [] },
      { worker: 'local', task: 'Repeat it louder.', sees: [0] },
      { worker: 'claude', task: 'Give the final answer.', sees: 'all' },
    ],
  };
  const run = await page.evaluate(
    ([p, pl]) =>
      (globalThis as unknown as Win).__egress.fullRun(p as WorkerSpec[], pl as never, 'run-anthropic'),
    [pool, plan] as const,
  );
  expect(run.errors).toEqual([null, null, null]);
  expect(run.status).toBe('done');
  // Echo answers the last user turn: for step 0 the question and its task, joined into one turn (the API
  // wants user and assistant to alternate).
  const first = 'What is the capital of France?\n\nAnswer the question.';
  expect(run.answers).toEqual([first, 'REPEAT IT LOUDER.', 'Give the final answer.']);

  // Native requests only, each preceded by a preflight that strict CORS passed: the opt-in header, the
  // version and the key in x-api-key, nothing of the SDKs' and no Authorization.
  const sent = anthropic.requests.filter((r) => r.method !== 'OPTIONS');
  expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/messages', 'POST /v1/messages']);
  const preflights = anthropic.requests.filter((r) => r.method === 'OPTIONS');
  expect(preflights).toHaveLength(2);
  for (const preflight of preflights) {
    expect(preflight.path).toBe('/v1/messages');
    expect(preflight.headers['access-control-request-headers']!.split(',').sort()).toEqual([
      'anthropic-dangerous-direct-browser-access',
      'anthropic-version',
      'content-type',
      'x-api-key',
    ]);
  }
  for (const post of sent) {
    expect(post.headers).toMatchObject({
      'anthropic-dangerous-direct-browser-access': 'true',
      'anthropic-version': '2023-06-01',
      'x-api-key': ANTHROPIC_KEY,
    });
    expect(post.headers.authorization).toBeUndefined();
    expect(Object.keys(post.headers).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
    const body = post.body as { system?: string; max_tokens?: number; messages: { role: string }[] };
    expect(body.system).toBe('Answer briefly.');
    expect(body.max_tokens).toBe(8192);
    expect(body.messages.map((m) => m.role)).not.toContain('system');
    expect(body).not.toHaveProperty('stream_options');
  }
  // The last step saw steps 0 and 1: alternating turns, the question and the first task joined.
  expect((sent[1]!.body as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
    'user',
  ]);

  // Each key went to its own origin and nowhere else.
  const appOrigin = originOf(baseURL!);
  const keyOf: Record<string, string> = { [anthropic.url]: ANTHROPIC_KEY, [other.url]: OTHER_KEY };
  for (const request of captured) {
    const origin = originOf(request.url());
    if (origin === appOrigin) continue;
    const everything = `${request.url()}\n${JSON.stringify(await request.allHeaders())}\n${request.postData() ?? ''}`;
    for (const [keyOrigin, key] of Object.entries(keyOf)) {
      if (origin === keyOrigin) expect(everything, request.url()).toContain(key);
      else expect(everything, `${key} leaked to ${request.url()}`).not.toContain(key);
    }
  }

  // Usage from message_start/message_delta (the provider's own counts), priced from the worker.
  const prompts = sent.map((post) => {
    const body = post.body as { system: string; messages: { role: string; content: string }[] };
    return countPromptTokens(body.messages) + tokenize(body.system).length;
  });
  const completions = [tokenize(first).length, tokenize('Give the final answer.').length];
  expect(run.usage[0]).toEqual({ promptTokens: prompts[0], completionTokens: completions[0] });
  expect(run.usage[2]).toEqual({ promptTokens: prompts[1], completionTokens: completions[1] });
  expect(run.costs[0]).toBeCloseTo(
    (prompts[0]! * PRICE.inputPerM + completions[0]! * PRICE.outputPerM) / 1e6,
    12,
  );
  expect(run.costs[2]).toBeCloseTo(
    (prompts[1]! * PRICE.inputPerM + completions[1]! * PRICE.outputPerM) / 1e6,
    12,
  );
  expect(run.totals.cost).toBeCloseTo(
    run.costs.reduce((sum: number, c) => sum + (c ?? 0), 0),
    12,
  );
  expect(run.totals).not.toHaveProperty('estimated');
  // The ledger read the same counts off the stream as it passed (message_start nests its usage).
  const entries = run.ledger
    .filter((e: LedgerEntry) => e.host === new URL(anthropic.url).host)
    .sort((a: LedgerEntry, b: LedgerEntry) => (a.stepIndex ?? 0) - (b.stepIndex ?? 0));
  expect(
    entries.map((e: LedgerEntry) => [
      e.stepIndex,
      e.purpose,
      e.path,
      e.state,
      e.promptTokens,
      e.completionTokens,
    ]),
  ).toEqual([
    [0, 'chat', '/v1/messages', 'done', prompts[0], completions[0]],
    [2, 'chat', '/v1/messages', 'done', prompts[1], completions[1]],
  ]);
});

test('Anthropic’s model list is read in its own shape, under strict CORS, with its key', async ({ page }) => {
  await open(page);
  await saveKey(page, 'anthropic', anthropic.baseURL, ANTHROPIC_KEY);
  const models = await page.evaluate(
    ([u]) => (globalThis as unknown as Win).__egress.models('anthropic', u!),
    [anthropic.baseURL],
  );
  expect(models).toEqual(expect.arrayContaining(['echo', 'upper', 'table']));
  const get = anthropic.requests.find((r) => r.method === 'GET')!;
  expect(get.path).toBe('/v1/models?limit=1000');
  expect(get.headers).toMatchObject({ 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01' });
});

/** A POST from the page to the Anthropic mode: its status, or the error the page sees. */
function post(page: Page, url: string, headers: Record<string, string>): Promise<string> {
  return page.evaluate(
    async ([u, h]) => {
      try {
        const res = await fetch(u!, {
          method: 'POST',
          headers: h as Record<string, string>,
          body: JSON.stringify({
            model: 'echo',
            max_tokens: 16,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        });
        return `status ${res.status}`;
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    },
    [url, headers] as const,
  );
}

test('Anthropic mode: without the opt-in header the page sees only a network failure (401, no CORS)', async ({
  page,
}) => {
  await open(page);
  const url = `${anthropic.baseURL}/messages`;
  const headers = {
    'x-api-key': ANTHROPIC_KEY,
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
  };
  expect(await post(page, url, headers)).toMatch(/^TypeError: Failed to fetch/);
  // The preflight passed and the request was answered: it is the answer's missing CORS headers that fail.
  expect(anthropic.requests.map((r) => r.method)).toEqual(['OPTIONS', 'POST']);

  // With the header it is answered; with an SDK's extra header strict CORS stops it at the preflight.
  anthropic.clearRequests();
  const optedIn = { ...headers, 'anthropic-dangerous-direct-browser-access': 'true' };
  expect(await post(page, url, optedIn)).toBe('status 200');
  anthropic.clearRequests();
  expect(await post(page, url, { ...optedIn, 'x-stainless-os': 'Linux' })).toMatch(
    /^TypeError: Failed to fetch/,
  );
  expect(anthropic.requests.map((r) => r.method)).toEqual(['OPTIONS']);
});

test('Anthropic mode: 529 overloaded is retried, and the step then completes', async ({ page }) => {
  await open(page);
  await saveKey(page, 'anthropic', anthropic.baseURL, ANTHROPIC_KEY);
  const pool = [worker('claude', 'anthropic', anthropic.baseURL, 'fault:529x1')];
  const plan = { thought: 'one step', steps: [{ worker: 'claude', task: 'Say it back.', sees: [] }] };
  const run = await page.evaluate(
    ([p, pl]) => (globalThis as unknown as Win).__egress.fullRun(p as WorkerSpec[], pl as never, 'run-529'),
    [pool, plan] as const,
  );
  expect(run.status).toBe('done');
  expect(run.errors).toEqual([null]);
  expect(anthropic.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
});

test('in the app: a worker of the catalog’s Anthropic preset answers a rerun, its tokens and cost shown', async ({
  page,
}) => {
  test.setTimeout(180_000);
  // The app as built, its Anthropic preset pinned to https://api.anthropic.com (which its CSP allows): that
  // host is answered by the test provider through Playwright's routing. Routing answers preflights itself,
  // so CORS is not tested here (the first test does that); the app's own wiring, key and display are.
  const forwarded: string[] = [];
  await page.route('https://api.anthropic.com/**', async (route) => {
    const url = new URL(route.request().url());
    forwarded.push(`${route.request().method()} ${url.pathname}`);
    await route.fulfill({
      response: await route.fetch({ url: `${anthropic.url}${url.pathname}${url.search}` }),
    });
  });
  await page.goto('/#/settings');
  const vault = page.getByTestId('vault-panel');
  await vault.getByLabel('Provider').selectOption('anthropic');
  await vault.getByLabel('API key').fill(ANTHROPIC_KEY);
  await vault.getByTestId('save-key').click();
  await expect(vault.getByTestId('key-last4')).toHaveText(`…${ANTHROPIC_KEY.slice(-4)}`);

  // The sample run (History's import), its first worker made a Claude worker of the catalog preset.
  const file = JSON.parse(sampleRunExport()) as {
    run: { pool: Record<string, unknown>[] };
  };
  Object.assign(file.run.pool[0]!, {
    label: 'Claude',
    providerId: 'anthropic',
    baseURL: 'https://api.anthropic.com/v1',
    // Echo, at 300 ms to the first token: a rerun answered at once could be over between two of the
    // test's looks at the page, and "running" below would be missed.
    model: 'slow',
    price: PRICE,
  });
  await importRunFile(page, JSON.stringify(file));
  await expect(page.getByText('Run imported.')).toBeVisible();
  await page.getByRole('link', { name: 'Which answer is best?' }).click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done');
  await page.getByRole('button', { name: 'Rerun step 0' }).click();
  await expect(run).toHaveAttribute('data-phase', 'running');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });

  // Step 0 asked the question and its task in one user turn; echo answered that turn.
  const answer = 'Which answer is best?\n\nPropose an answer.';
  const tokens = tokenize(answer).length;
  await expect(page.getByTestId('step-card-0')).toContainText('Which answer is best? Propose an answer.');
  const cost = (tokens * PRICE.inputPerM + tokens * PRICE.outputPerM) / 1e6;
  const metrics = page.getByTestId('step-metrics-0');
  await expect(metrics).toHaveText(
    new RegExp(`^${tokens} in · ${tokens} out · \\$${cost.toPrecision(2)} · `),
  );
  await expect(metrics).not.toContainText('estimated');
  expect(forwarded.filter((r) => r.startsWith('POST'))).toEqual(['POST /v1/messages', 'POST /v1/messages']);
  const post = anthropic.requests.find((r) => r.method === 'POST')!;
  expect(post.headers).toMatchObject({
    'x-api-key': ANTHROPIC_KEY,
    'anthropic-dangerous-direct-browser-access': 'true',
    'anthropic-version': '2023-06-01',
  });
});
