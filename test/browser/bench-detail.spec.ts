import { expect, test } from '@playwright/test';
import { startProvider, type TestProvider } from '../provider/server.ts';

// The bench harness (test/pages/bench.html) against the local test provider: one worker that answers
// (wrongly on one task) and one whose every request is refused with a 401.
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
    ],
  });
});
test.afterAll(() => provider.close());

test('a failed or wrong bench item opens to its error, or its answer and the expected value', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const query = new URLSearchParams({ base: provider.baseURL, models: 'facts,fault:401' });
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
  await page.getByRole('button', { name: /Run bench \(4 items\)/ }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 90_000 });

  const results = page.getByTestId('bench-results');
  const misses = results.getByTestId('bench-miss');
  await expect(misses).toHaveCount(3);
  const wrong = results.locator('[data-testid="bench-miss"][data-strategy="single:facts"][data-task="a2"]');
  await expect(wrong.locator('summary')).toContainText('wrong answer');
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
  await expect(failed.locator('summary')).toContainText('failed');
  await failed.locator('summary').press('Enter');
  await expect(failed.getByTestId('miss-error')).toContainText('401');
  await expect(failed.getByTestId('miss-expected')).toHaveText('Rome');

  // Chart labels do not overlap one another.
  const boxes = await results
    .getByTestId('point-label')
    .evaluateAll((els) => els.map((el) => (el as SVGGraphicsElement).getBoundingClientRect().toJSON()));
  expect(boxes).toHaveLength(2);
  const [a, b] = boxes as DOMRect[];
  const apart = a!.right <= b!.left || b!.right <= a!.left || a!.bottom <= b!.top || b!.bottom <= a!.top;
  expect(apart).toBe(true);
});
