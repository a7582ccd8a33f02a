import { startProvider, type TestProvider } from '../provider/server.ts';
import { logErrors, openPlanInReview } from './app-steps.ts';
import { type Download, expect, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';

// A worker on a server that sends no usage at all (as many local and proxy servers do): its tokens are
// counted with the o200k tokenizer and shown as estimates (≈, the tokenizer named), never as 0 or $0, in
// the step card, the run totals, History, both exports and the egress ledger. A real run of a one-step
// plan (opened in review as a stored plan: who wrote it is not the subject), the step sent to the test
// provider over real HTTP.

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({ cors: 'strict', usage: 'never' });
});
test.afterAll(async () => {
  await provider?.close();
});

const O200K = 'estimated with the o200k tokenizer: the provider sent no usage';

async function read(download: Promise<Download>): Promise<string> {
  return Buffer.concat(await (await (await download).createReadStream()).toArray()).toString('utf8');
}

test('no usage from the provider: ≈ tokens and cost, with the tokenizer named, everywhere they are shown', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  const quietEcho = customWorker({
    id: 'w1',
    baseURL: provider.baseURL,
    model: 'echo',
    label: 'Quiet echo',
    strengths: 'repeats what it is told',
    price: { inputPerM: 2, outputPerM: 8 },
  });
  await seedApp(page, { pool: [quietEcho] });
  await openPlanInReview(page, {
    question: 'Say something quietly.',
    pool: [quietEcho],
    steps: [{ worker: 'w1', task: 'Say something quietly.', sees: [] }],
  });
  await page.getByTestId('run-plan').click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  const runId = (await run.getAttribute('data-run-id')) ?? '';
  // The provider really sent no usage: no chunk of any answer carried it.
  expect(provider.requests.some((r) => r.path === '/v1/chat/completions')).toBe(true);

  // The step card: ≈ before every count and the cost, the tokenizer named in its tooltip.
  const metrics = page.getByTestId('step-metrics-0');
  await expect(metrics).toHaveText(/^≈[1-9]\d* in · ≈[1-9]\d* out · ≈\$\d/);
  await expect(metrics).toHaveAttribute('title', `≈ ${O200K}`);

  // The run totals.
  const totals = page.getByTestId('run-totals');
  for (const name of ['Tokens in', 'Tokens out']) {
    const row = totals.locator('div', { has: page.getByText(name, { exact: true }) });
    await expect(row.locator('dd')).toHaveText(/^≈[1-9]\d*$/);
    await expect(row).toHaveAttribute('title', `In part ≈ ${O200K}`);
  }
  const cost = totals.locator('div', { has: page.getByText('Cost', { exact: true }) }).locator('dd');
  await expect(cost).toHaveText(/^≈\$0\.0\d*[1-9]\d* \(estimated\)$/);

  // Both exports.
  const md = await read(
    (async () => {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export Markdown' }).click();
      return download;
    })(),
  );
  expect(md).toMatch(/- Tokens: ≈[1-9]\d* in, ≈[1-9]\d* out/);
  expect(md).toMatch(/- Cost: ≈\$0\.\d*[1-9]/);
  expect(md).toContain(O200K);
  const json = JSON.parse(
    await read(
      (async () => {
        const download = page.waitForEvent('download');
        await page.getByRole('button', { name: 'Export JSON' }).click();
        return download;
      })(),
    ),
  ) as { run: { totals: Record<string, unknown> }; steps: { requests: Record<string, unknown>[] }[] };
  expect(json.run.totals).toMatchObject({ estimated: true, estimator: 'o200k' });
  expect(json.run.totals.cost).toBeGreaterThan(0);
  expect(json.steps[0]!.requests[0]).toMatchObject({ estimated: true, estimator: 'o200k' });

  // History.
  await page.goto('/#/history');
  const historyCost = page.getByTestId('history-item').first().getByTestId('history-cost');
  await expect(historyCost).toHaveText(/^≈\$0\.\d*[1-9]/);
  await expect(historyCost).toHaveAttribute('title', `In part ≈ ${O200K}`);

  // The egress ledger: the chat request's tokens are the run's estimate, marked as one.
  await page.goto('/#/ledger');
  const row = page.getByTestId('ledger-panel').locator('tbody tr', { hasText: runId.slice(0, 6) });
  await expect(row).toHaveCount(1);
  const tokens = row.getByTestId('ledger-tokens');
  await expect(tokens).toHaveText(/^≈[1-9]\d* \/ ≈[1-9]\d*$/);
  await expect(tokens).toHaveAttribute('title', `≈ ${O200K}`);
});
