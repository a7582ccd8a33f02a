import { askQuestion, editPlan, loadTinyConductor, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';
import { openStepsByDefault } from './steps-open.ts';

// Failover against real parts (the tiny GGUF conductor in its worker, the test provider over HTTP under
// strict CORS): a worker whose provider answers 503 every time gives its step to another worker of the
// pool, unless the user turned failover off or pinned the step.

const servers = useServers({
  cors: 'strict',
  // Short Retry-After on the 503s, so the three attempts before a takeover take well under a second.
  retryAfterMs: 100,
  models: [{ id: 'echo', behaviour: { kind: 'echo' } }],
});

// One page for the three runs: the model loads once, and each test sets failover itself before it asks.
test.describe.configure({ mode: 'serial' });
let page: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  page = await browser.newPage();
  await openStepsByDefault(page.context());
  const worker = { baseURL: servers.provider.baseURL, strengths: 'answers questions' };
  await seedApp(page, {
    pool: [
      customWorker({ ...worker, id: 'w1', model: 'fault:503', label: 'Down model' }),
      customWorker({ ...worker, id: 'w2', model: 'echo', label: 'Backup model' }),
    ],
    plan: { maxDepth: 0, maxSteps: 2 },
  });
  await loadTinyConductor(page, servers.models.url);
});

test.afterAll(async () => {
  await page?.close();
});

/** With the pool of a worker that is always down (w1) and one that answers (w2), a plan whose one step is w1's. */
async function askTheDownWorker(options: { failover: boolean; pin?: boolean }): Promise<void> {
  await page.goto('/#/settings');
  await page.getByTestId('failover-toggle').setChecked(options.failover);
  await askQuestion(page, 'Say hello.', { review: true });
  await editPlan(page, [{ worker: 'w1', task: 'Say hello back.', sees: [] }]);
  const editor = page.getByTestId('plan-editor');
  if (options.pin) await editor.getByTestId('edit-pin-0').check();
  await editor.getByTestId('run-plan').click();
}

test('a worker whose provider answers 503 every time is replaced, and the run completes with the takeover shown', async () => {
  test.setTimeout(240_000);
  // On unless the user turns it off.
  await page.goto('/#/settings');
  await expect(page.getByTestId('failover-toggle')).toBeChecked();
  await askTheDownWorker({ failover: true });

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  const card = page.getByTestId('step-card-0');
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByRole('heading')).toContainText('Backup model');
  await expect(card.getByTestId('step-takeover-0')).toHaveText(
    /^Down model failed \(Provider error \(503\).*gave up after 3 attempts\)\) → Backup model took over\.$/,
  );
  await expect(page.getByTestId('final-answer')).toContainText('Say hello back.');
  // Three requests to the down worker, then one to the backup.
  const models = servers.provider.requests
    .filter((r) => r.method === 'POST')
    .map((r) => (r.body as { model: string }).model);
  expect(models).toEqual(['fault:503', 'fault:503', 'fault:503', 'echo']);

  // The ledger names each request's worker, and the one that took over as such.
  const runId = (await run.getAttribute('data-run-id')) ?? '';
  await page.goto('/#/ledger');
  const rows = page.getByTestId('ledger-panel').locator('tbody tr', { hasText: runId.slice(0, 6) });
  await expect(rows).toHaveCount(4);
  const takeover = page.getByTestId('ledger-takeover');
  await expect(rows.filter({ hasText: 'Down model', hasNot: takeover })).toHaveCount(3);
  await expect(rows.getByTestId('ledger-takeover')).toHaveText('(took over from Down model)');
  await expect(rows.filter({ has: takeover })).toContainText('Backup model');
});

test('with failover off, the step fails as it always did', async () => {
  test.setTimeout(240_000);
  servers.provider.clearRequests();
  await askTheDownWorker({ failover: false });

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'failed', { timeout: 120_000 });
  const card = page.getByTestId('step-card-0');
  await expect(card).toHaveAttribute('data-state', 'failed');
  await expect(card).toContainText(/Provider error \(503\).*\(gave up after 3 attempts\)/);
  await expect(card.getByTestId('step-takeover-0')).toHaveCount(0);
  const models = servers.provider.requests
    .filter((r) => r.method === 'POST')
    .map((r) => (r.body as { model: string }).model);
  expect(models).toEqual(['fault:503', 'fault:503', 'fault:503']);
});

test('a step pinned in the review stays on its worker and fails, saying so', async () => {
  test.setTimeout(240_000);
  servers.provider.clearRequests();
  await askTheDownWorker({ failover: true, pin: true });

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'failed', { timeout: 120_000 });
  const card = page.getByTestId('step-card-0');
  await expect(card).toContainText('pinned to its worker');
  await expect(card).toContainText('The step is pinned to Down model, so no other worker took over.');
  await expect(card.getByTestId('step-takeover-0')).toHaveCount(0);
});
