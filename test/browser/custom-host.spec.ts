import { expect, test } from './app-test.ts';

// Where the user types a host, the page says when its policy will refuse it and how to allow it
// (BATON_CONNECT_SRC at build time), instead of letting the first request fail.

test('the pool form says a host outside the policy needs BATON_CONNECT_SRC, and only then', async ({
  page,
}) => {
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  const baseURL = form.getByLabel('Base URL');
  const hint = form.getByTestId('connect-src-hint');

  await baseURL.fill('https://llm.example.com/v1');
  await expect(hint).toContainText("This page's security policy does not let it reach llm.example.com");
  await expect(hint).toContainText('BATON_CONNECT_SRC="https://llm.example.com" npm run build');

  await baseURL.fill('http://192.168.1.20:11434/v1');
  await expect(hint).toContainText('BATON_CONNECT_SRC="http://192.168.1.20:11434"');

  // This machine and a catalog provider are allowed: nothing to say; nor while the URL does not parse.
  for (const quiet of ['http://127.0.0.1:11434/v1', 'https://api.openai.com/v1', 'https://']) {
    await baseURL.fill(quiet);
    await expect(hint, quiet).toHaveCount(0);
  }
});
