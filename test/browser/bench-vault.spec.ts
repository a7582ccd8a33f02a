import { startProvider, type TestProvider } from '../provider/server.ts';
import { logErrors, saveKeyUnderPassphrase } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';

// The whole app with a locked vault (passphrase set, page reloaded): the bench asks for the passphrase
// once, before its first item, as Ask does, instead of planning and failing every item; and Test
// connection reaches a server that needs no key while the vault stays locked. A keyed test provider and
// a keyless one over real HTTP, real IndexedDB; no conductor (single-worker strategies need none).

const KEY = 'sk-bench-vault-0123456789abcd';
const PASS = 'correct horse battery staple';
let keyed: TestProvider;
let keyless: TestProvider;
test.beforeAll(async () => {
  keyed = await startProvider({
    cors: 'strict',
    apiKey: KEY,
    models: [
      {
        id: 'sayer',
        behaviour: { kind: 'table', answers: { 'Say one.': 'Answer: one', 'Say two.': 'Answer: two' } },
      },
    ],
  });
  keyless = await startProvider({ cors: 'strict' });
});
test.afterAll(async () => {
  await keyed.close();
  await keyless.close();
});

const TASKS = [
  JSON.stringify({ id: 'one', kind: 'exact', question: 'Say one.', answer: 'one' }),
  JSON.stringify({ id: 'two', kind: 'exact', question: 'Say two.', answer: 'two' }),
].join('\n');
const posts = () => keyed.requests.filter((r) => r.method === 'POST');

async function setUpBench(page: Page): Promise<void> {
  await page.goto('/#/bench');
  await expect(page.getByTestId('bench-screen')).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(TASKS);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-summary')).toContainText('2 tasks (2 exact)');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await expect(page.getByTestId('chosen-strategies')).toContainText('Single (Sayer)');
}

test('a locked vault: the bench asks for the passphrase before its first item; Test connection reaches a keyless server', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  await seedApp(page, {
    pool: [customWorker({ id: 'w1', baseURL: keyed.baseURL, model: 'sayer', label: 'Sayer' })],
  });
  await page.goto('/#/settings');
  await saveKeyUnderPassphrase(page, keyed.baseURL, KEY, PASS);
  await page.reload();

  // Locked: a server that needs no key still answers Test connection.
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(keyless.baseURL);
  await form.getByLabel('Model').fill('echo');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('answered a streamed request');

  await setUpBench(page);
  const prompt = page.getByRole('dialog', { name: 'Unlock the vault' });
  await page.getByRole('button', { name: 'Run bench (2 items)' }).click();
  await expect(prompt).toBeVisible();
  await expect(prompt).toContainText('to run this bench');
  // Declined: no bench, nothing sent, and the form says why.
  await page.keyboard.press('Escape');
  await expect(prompt).toBeHidden();
  await expect(page.getByTestId('bench-problem')).toContainText('The vault is still locked');
  await expect(page.getByTestId('bench-progress')).toHaveCount(0);
  expect(posts()).toHaveLength(0);

  await page.getByRole('button', { name: 'Run bench (2 items)' }).click();
  await prompt.getByLabel('Passphrase').fill(PASS);
  await prompt.getByRole('button', { name: 'Unlock' }).click();
  await expect(prompt).toBeHidden();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  const results = page.getByTestId('results-table');
  await expect(results.locator('tbody th')).toHaveText(['Single (Sayer)']);
  await expect(results.locator('td[data-col="failures"]')).toHaveText('0');
  await expect(results.locator('td[data-col="accuracy"]')).toHaveText('100% (2/2)');
  const chats = posts().filter((r) => r.path === '/v1/chat/completions');
  expect(chats).toHaveLength(2);
  expect(chats.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
});
