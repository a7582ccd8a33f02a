import type { LedgerEntry } from '../../src/egress/ledger.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import type { EgressHarness } from '../pages/egress.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// Where the browser knows why a request failed, the step's error says so instead of "Failed to fetch":
// offline, the app's own CSP blocking a host, a redirect (which the browser hides behind an opaque
// response). Real egress, transport and ledger in the built harness page, which carries the app's CSP.

let provider: TestProvider;
let noCors: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({ cors: 'strict' });
  noCors = await startProvider({ cors: 'off' });
});
test.afterAll(async () => {
  await Promise.all([provider.close(), noCors.close()]);
});

type Win = { __egress: EgressHarness };

// One harness page for the file: each test gets a vault and a ledger of its own from `setup`, and what it
// checks is the error of a request, not the page's load. A page per test was mostly the time to open it.
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
  await page.goto('/test/pages/egress.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
});
test.afterAll(() => page?.close());
test.beforeEach(() => page.evaluate(() => (globalThis as unknown as Win).__egress.setup()));

function worker(baseURL: string, model: string): WorkerSpec {
  return {
    id: 'w',
    label: 'W',
    strengths: '',
    providerId: 'custom',
    baseURL,
    model,
    maxConcurrency: 1,
    enabled: true,
  };
}

const send = (page: Page, spec: WorkerSpec) =>
  page.evaluate((w) => (globalThis as unknown as Win).__egress.viaEgress(w), spec);
const ledger = (page: Page): Promise<LedgerEntry[]> =>
  page.evaluate(() => (globalThis as unknown as Win).__egress.ledger());

test('a host the CSP does not list is named, with how to allow it', async () => {
  const result = await send(page, worker('https://llm.blocked.example/v1', 'echo'));
  expect(result.ok).toBe(false);
  expect(result.error?.message).toContain(
    "This app's Content-Security-Policy does not allow connections to https://llm.blocked.example",
  );
  expect(result.error?.message).toContain('BATON_CONNECT_SRC="https://llm.blocked.example" npm run build');
  expect(result.error?.message).not.toMatch(/Failed to fetch/);
  const [entry] = await ledger(page);
  expect(entry).toMatchObject({ host: 'llm.blocked.example', state: 'error' });
  expect(entry?.error).toContain('Content-Security-Policy');
});

test('offline, the error says the device is offline', async () => {
  const context = page.context();
  await context.setOffline(true);
  try {
    const result = await send(page, worker(provider.baseURL, 'echo'));
    expect(result.ok).toBe(false);
    expect(result.error?.message).toContain('This device is offline');
    expect(result.error?.message).not.toMatch(/Failed to fetch/);
  } finally {
    await context.setOffline(false);
  }
});

test('a redirect is named, not followed and not a bare "Failed to fetch"', async () => {
  provider.clearRequests();
  const result = await send(page, worker(provider.baseURL, 'fault:307'));
  expect(result.ok).toBe(false);
  expect(result.error).toMatchObject({ kind: 'unexpected-response' });
  expect(result.error?.message).toMatch(/answered with a redirect instead of an answer/);
  expect(provider.requests.filter((r) => r.path.startsWith('/moved'))).toEqual([]);
});

test("a step's error and its ledger row name the cause as Test connection does: no CORS, or nothing listening", async () => {
  const cases = [
    {
      worker: worker(noCors.baseURL, 'echo'),
      said: `The server at ${new URL(noCors.url).host} is running, but it does not allow requests from this page (CORS)`,
    },
    {
      worker: worker('http://127.0.0.1:1/v1', 'echo'),
      said: 'Nothing is listening at 127.0.0.1:1 (connection refused)',
    },
  ];
  for (const [i, { worker: w, said }] of cases.entries()) {
    const run = await page.evaluate(
      ([spec, runId]) =>
        (globalThis as unknown as Win).__egress.fullRun(
          [spec],
          { steps: [{ worker: 'w', task: 'Hi.', sees: [] }] },
          runId,
        ),
      [w, `cause-${i}`] as const,
    );
    expect(run.status).toBe('failed');
    expect(run.errors[0]).toContain(said);
    expect(run.errors[0]).not.toMatch(/Failed to fetch/);
    const rows = run.ledger.filter((e) => e.runId === `cause-${i}` && e.purpose === 'chat');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.error).toContain(said);
      expect(row.error).not.toMatch(/Failed to fetch/);
    }
    // The probe that told the two apart has its own row: a failed one names the cause too.
    const host = new URL(w.baseURL).host;
    const probes = run.ledger.filter((e) => e.purpose === 'probe' && e.host === host);
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes.filter((e) => e.state === 'error')) {
      expect(probe.error).toContain('Nothing is listening at 127.0.0.1:1 (connection refused)');
      expect(probe.error).not.toMatch(/Failed to fetch/);
    }
    const tested = await page.evaluate(
      ([baseURL]) => (globalThis as unknown as Win).__egress.connection('custom', baseURL, 'echo'),
      [w.baseURL] as const,
    );
    expect(tested.ok === false && tested.message).toContain(said);
  }
});
