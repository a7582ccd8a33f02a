import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, test } from './app-test.ts';

// The bench harness (test/pages/bench.html) against the local test provider: one worker that answers
// (wrongly on one task), one whose every request is refused with a 401, and one right on the sum, which
// plans a pipeline whose later steps lose its right answer. Workers carry labels of their own.
const TASKS = [
  JSON.stringify({ id: 'a2', kind: 'numeric', question: 'What is 6*7?', answer: '42' }),
  JSON.stringify({ id: 'f1', kind: 'exact', question: 'Capital of Italy?', answer: 'Rome' }),
].join('\n');

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: 'facts',
        behaviour: {
          kind: 'table',
          answers: {
            'What is 6*7?': '<img src=x onerror="window.__pwned=true"> Answer: 40',
            'Capital of Italy?': 'Answer: Rome',
          },
        },
      },
      { id: 'arith', behaviour: { kind: 'table', answers: { 'What is 6*7?': 'Answer: 42' } } },
    ],
  });
});
test.afterAll(() => provider.close());

test('a failed or wrong bench item opens to its error, or its answer and the expected value', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const query = new URLSearchParams({
    base: provider.baseURL,
    models: 'facts,fault:401,arith',
    labels: 'Facts model,Refused model,Arith model',
  });
  await page.goto(`/test/pages/bench.html?${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(TASKS);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-summary')).toContainText('2 tasks');
  await page.getByLabel('Kind').selectOption('single');
  await page.getByLabel('Worker', { exact: true }).selectOption('facts');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await page.getByLabel('Worker', { exact: true }).selectOption('fault:401');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  // Mixture-of-Agents offers its proposers by their labels too.
  await page.getByLabel('Kind').selectOption('moa');
  const proposers = page.getByRole('group', { name: 'Proposers' });
  for (const label of ['Facts model', 'Refused model', 'Arith model'])
    await expect(proposers.getByRole('checkbox', { name: label, exact: true })).toBeVisible();
  await page.getByLabel('Kind').selectOption('pipeline');
  await page.getByTestId('strategies').getByLabel('Planner').selectOption('arith');
  await page.getByLabel('Executor').selectOption('facts');
  await page.getByLabel('Verifier').selectOption('facts');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  // Strategies are named with the workers' labels, not their ids.
  await expect(page.getByTestId('chosen-strategies').locator('li > span:first-child')).toHaveText([
    'Single (Facts model)',
    'Single (Refused model)',
    'Plan → execute → verify',
  ]);
  await page.getByRole('button', { name: /Run bench \(6 items\)/ }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 90_000 });

  const results = page.getByTestId('bench-results');
  await expect(results.getByTestId('results-table').locator('tbody th')).toHaveText([
    'Single (Facts model)',
    'Single (Refused model)',
    'Plan → execute → verify',
  ]);
  const misses = results.getByTestId('bench-miss');
  await expect(misses).toHaveCount(4);
  const wrong = results.locator('[data-testid="bench-miss"][data-strategy="single:facts"][data-task="a2"]');
  await expect(wrong.locator('summary')).toHaveText(
    'Single (Facts model) · a2: No step had it (workers or routing)',
  );
  await wrong.locator('summary').click();
  await expect(wrong.getByTestId('miss-expected')).toHaveText('42');
  await expect(wrong.getByTestId('miss-extracted')).toHaveText('40');
  // The model's answer is shown as text, never as markup.
  await expect(wrong.getByTestId('miss-answer')).toContainText('<img src=x onerror=');
  await expect(wrong.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();

  const failed = results.locator(
    '[data-testid="bench-miss"][data-strategy="single:fault:401"][data-task="f1"]',
  );
  await expect(failed.locator('summary')).toContainText('Run failed (no answer)');
  await failed.locator('summary').press('Enter');
  await expect(failed.getByTestId('miss-error')).toContainText('401');
  await expect(failed.getByTestId('miss-expected')).toHaveText('Rome');

  // The pipeline's planner had the sum right; the list says which step, by its worker's label.
  const lost = results.locator('[data-testid="bench-miss"][data-strategy^="pipeline:"][data-task="a2"]');
  const lostSummary = lost.locator(':scope > summary');
  await expect(lostSummary).toContainText('A step had it, a later one lost it (synthesis)');
  await lostSummary.click();
  await expect(lost.getByTestId('miss-step').locator('summary')).toHaveText([
    /^Arith model: right$/,
    /^Facts model: wrong$/,
    /^Facts model: wrong$/,
  ]);
  // The cause table counts each item under the cause the list gives it.
  const causes = results.getByTestId('causes-table');
  await expect(causes.locator('tr[data-strategy^="pipeline:"] td[data-col="synthesis"]')).toHaveText('1');
  await expect(causes.locator('tr[data-strategy="single:fault:401"] td[data-col="failed"]')).toHaveText('2');
  await expect(causes.locator('tr[data-strategy="single:facts"] td[data-col="workers"]')).toHaveText('1');

  // Chart labels do not overlap one another.
  const boxes = await results
    .getByTestId('point-label')
    .evaluateAll((els) => els.map((el) => (el as SVGGraphicsElement).getBoundingClientRect().toJSON()));
  expect(boxes).toHaveLength(3);
  const apart = (a: DOMRect, b: DOMRect) =>
    a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  for (const [i, a] of (boxes as DOMRect[]).entries())
    for (const b of (boxes as DOMRect[]).slice(i + 1)) expect(apart(a, b)).toBe(true);
});
