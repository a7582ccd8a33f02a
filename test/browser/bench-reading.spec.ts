import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, test } from './app-test.ts';

// The reading pair on the page: a Markdown document of 40 sections, the notice period in section 27, and
// one question about it. The worker answers only from what its request carries.
const ANSWER = 'ninety (90) days';
const DOCUMENT = Array.from({ length: 40 }, (_, i) => {
  const n = i + 1;
  const body =
    n === 27
      ? `Either party may end this agreement by giving ${ANSWER} written notice.`
      : `This section sets out how deliveries of lot ${n} are packed, labelled and checked on arrival.`;
  return `## Section ${n}\n\n${`${body} `.repeat(8)}\n`;
}).join('\n');
const TASK = JSON.stringify({
  id: 'q1',
  kind: 'exact',
  question: 'How much notice ends the agreement?',
  answer: ANSWER,
});

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: 'reader',
        behaviour: {
          kind: 'request',
          fn: (body) =>
            JSON.stringify(body.messages).includes(ANSWER) ? `Answer: ${ANSWER}` : 'Answer: not said',
        },
      },
    ],
  });
});
test.afterAll(() => provider.close());

test('the reading pair: the document whole and as passages, scored side by side with what each sent', async ({
  page,
}) => {
  await page.goto(
    `/test/pages/bench.html?${new URLSearchParams({ base: provider.baseURL, models: 'reader' })}`,
  );
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(TASK);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await page.getByLabel('Kind').selectOption('reading');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await expect(page.getByTestId('chosen-strategies').locator('li')).toHaveText([
    /Reading the whole file \(reader\)/,
    /Reading passages \(reader\)/,
  ]);
  // Without a document the bench does not start, and says why.
  await page.getByRole('button', { name: /Run bench \(2 items\)/ }).click();
  await expect(page.getByTestId('bench-problem')).toContainText('need a document');

  await page.getByLabel('Text, Markdown, CSV or PDF file').setInputFiles({
    name: 'terms.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from(DOCUMENT),
  });
  await expect(page.getByTestId('bench-document-chosen')).toContainText('terms.md');
  await page.getByRole('button', { name: /Run bench \(2 items\)/ }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });

  const cell = (as: string, col: string) =>
    page
      .getByTestId('bench-results')
      .locator(`tr[data-strategy="reading:${as}:reader"] td[data-col="${col}"]`);
  await expect(cell('whole', 'accuracy')).toHaveText('100% (1/1)');
  await expect(cell('passages', 'accuracy')).toHaveText('100% (1/1)');
  await expect(cell('passages', 'vs-whole')).toContainText('no clear difference');
  await expect(cell('whole', 'document-sent')).toHaveText(/KB$/);
  // The provider's own log: the passages' request is a fraction of the whole one.
  const sizes = provider.requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
    .map((r) => JSON.stringify(r.body).length)
    .sort((a, b) => a - b);
  expect(sizes).toHaveLength(2);
  expect(sizes[0]! * 3).toBeLessThan(sizes[1]!);
});
