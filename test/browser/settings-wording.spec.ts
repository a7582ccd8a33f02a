import { expect, test } from '@playwright/test';

// Wording in Settings that was wrong: "a OpenAI key", and a CORS hint printed twice (once under the form,
// once in the connection result).

test('the key link says "an OpenAI key", "a Groq key"', async ({ page }) => {
  await page.goto('/#/settings');
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('openai');
  await expect(keys.getByRole('link', { name: 'Get an OpenAI key' })).toBeVisible();
  await keys.getByLabel('Provider').selectOption('groq');
  await expect(keys.getByRole('link', { name: 'Get a Groq key' })).toBeVisible();
});

test('a failed connection test to Ollama shows its CORS hint once, with this page origin', async ({
  page,
  baseURL,
}) => {
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('ollama');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:1/v1');
  await form.getByLabel('Model').fill('llama3');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(form.getByTestId('connection-result')).toContainText('OLLAMA_ORIGINS=', { timeout: 30_000 });
  const origin = new URL(baseURL!).origin;
  await expect(form.getByText(/OLLAMA_ORIGINS=/)).toHaveCount(1);
  await expect(form.getByText(/OLLAMA_ORIGINS=/)).toContainText(`OLLAMA_ORIGINS=${origin}`);
});
