import { readFileSync } from 'node:fs';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';

// A GSM8K-format file (written for Baton, test/fixtures/benchmarks/) picked as a file, cut to a seeded
// sample of 2, then run by two single workers: `good` is right on every item, `poor` on none. So, by
// hand: good 2/2 (Wilson 34%–100%), poor 0/2 (0%–66%), and poor lost both items to the best single.
const FIXTURE = new URL('../fixtures/benchmarks/gsm8k.jsonl', import.meta.url);
const records = readFileSync(FIXTURE, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { question: string; answer: string });
const asked = (question: string) => `${question}\nSolve it step by step.`;
const final = (answer: string) => answer.split('####')[1]!.trim();

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: 'good',
        behaviour: {
          kind: 'table',
          answers: Object.fromEntries(records.map((r) => [asked(r.question), `Answer: ${final(r.answer)}`])),
        },
      },
      {
        id: 'poor',
        behaviour: {
          kind: 'table',
          answers: Object.fromEntries(records.map((r) => [asked(r.question), 'Answer: 7'])),
        },
      },
    ],
  });
});
test.afterAll(() => provider.close());
test.describe.configure({ timeout: 120_000 });

async function open(page: Page): Promise<void> {
  const query = new URLSearchParams({ base: provider.baseURL, models: 'good,poor', theme: 'light' });
  await page.goto(`/test/pages/bench.html?${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

test('a published GSM8K file is recognised, sampled with a seed, and its results carry intervals and causes', async ({
  page,
}) => {
  await open(page);
  await page.getByLabel('Import JSONL').check();
  await expect(page.getByTestId('taskset-formats')).toContainText('github.com/openai/grade-school-math');
  await page.getByLabel('JSONL or CSV file').setInputFiles(FIXTURE.pathname);
  const summary = page.getByTestId('taskset-summary');
  await expect(summary).toContainText('3 tasks (3 numeric) from gsm8k.jsonl, read as GSM8K');
  await page.getByLabel('Items to run').fill('2');
  await expect(summary).toContainText('2 tasks (2 numeric), a sample of 3 with seed 1');

  for (const worker of ['good', 'poor']) {
    await page.getByLabel('Worker', { exact: true }).selectOption(worker);
    await page.getByRole('button', { name: 'Add strategy' }).click();
  }
  await page.getByRole('button', { name: 'Run bench (4 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });

  const results = page.getByTestId('bench-results');
  const cell = (strategy: string, col: string) =>
    results.locator(`tr[data-strategy="${strategy}"] td[data-col="${col}"]`);
  await expect(cell('single:good', 'accuracy')).toHaveText('100% (2/2)');
  await expect(cell('single:good', 'interval')).toHaveText('34%–100%');
  await expect(cell('single:poor', 'interval')).toHaveText('0%–66%');
  await expect(cell('single:good', 'vs-best')).toHaveText('best single worker');
  await expect(cell('single:poor', 'vs-best')).toHaveText(/^−100 points \(.*\), 0 won, 2 lost: worse$/);

  const causes = page.getByTestId('causes-table');
  await expect(causes.locator('tr[data-strategy="single:poor"] td[data-col="workers"]')).toHaveText('2');
  await expect(causes.locator('tr[data-strategy="single:good"] td[data-col="wrong"]')).toHaveText('0');
  await expect(page.getByTestId('worker-rates').locator('li')).toHaveText([
    'good: 2 of 2 right (100%)',
    'poor: 0 of 2 right (0%)',
  ]);
});
