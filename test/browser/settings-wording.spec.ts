import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// Wording in Settings that was wrong: "a OpenAI key", and a CORS hint printed twice (once under the form,
// once in the connection result).

// One Settings page for both: each looks at its own form's wording, not at a first load.
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
});
test.afterAll(() => page?.close());

test('the key link says "an OpenAI key", "a Groq key"', async () => {
  await page.goto('/#/settings');
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('openai');
  await expect(keys.getByRole('link', { name: 'Get an OpenAI key' })).toBeVisible();
  await keys.getByLabel('Provider').selectOption('groq');
  await expect(keys.getByRole('link', { name: 'Get a Groq key' })).toBeVisible();
});

// A server that answers but sends no CORS headers: the cause the Ollama hint is for (a port where nothing
// listens gets no CORS hint, since CORS cannot help there).
let noCors: TestProvider;
test.beforeAll(async () => {
  noCors = await startProvider({ cors: 'off' });
});
test.afterAll(async () => {
  await noCors.close();
});

test('a failed connection test to Ollama shows its CORS hint once, with this page origin', async ({
  baseURL,
}) => {
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('ollama');
  await form.getByLabel('Base URL').fill(noCors.baseURL);
  await form.getByLabel('Model').fill('llama3');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(form.getByTestId('connection-result')).toContainText('OLLAMA_ORIGINS=', { timeout: 30_000 });
  const origin = new URL(baseURL!).origin;
  await expect(form.getByText(/OLLAMA_ORIGINS=/)).toHaveCount(1);
  await expect(form.getByText(/OLLAMA_ORIGINS=/)).toContainText(`OLLAMA_ORIGINS=${origin}`);
});
