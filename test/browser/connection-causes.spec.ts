import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';

// Settings → Add a worker → Test connection, as a user sees it, in Chromium, on the app's own
// cross-origin isolated page (COEP credentialless): five causes that used to read alike, each against a
// real server on this machine, each with its own message.

const KEY = 'sk-causes-right-1111111111111111';
const WRONG = 'sk-causes-wrong-2222222222222222';
let keyed: TestProvider;
let otherKey: TestProvider;
let noCors: TestProvider;

test.beforeAll(async () => {
  keyed = await startProvider({ apiKey: KEY, cors: 'strict' });
  otherKey = await startProvider({ apiKey: KEY, cors: 'strict' });
  noCors = await startProvider({ cors: 'off' });
});
test.afterAll(async () => {
  await Promise.all([keyed.close(), otherKey.close(), noCors.close()]);
});

async function saveKey(page: Page, serverURL: string, key: string): Promise<void> {
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('custom');
  await keys.getByLabel('Server URL').fill(serverURL);
  await keys.getByLabel('API key').fill(key);
  await keys.getByTestId('save-key').click();
  await expect(keys.getByRole('listitem').filter({ hasText: new URL(serverURL).host })).toContainText(
    `…${key.slice(-4)}`,
  );
}

/**
 * Fills the add-worker form, presses Test connection, waits for a result that says `expected` (the one
 * before it says something else) and returns all it says.
 */
async function testConnection(page: Page, baseURL: string, model: string, expected: string): Promise<string> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(baseURL);
  await form.getByLabel('Model').fill(model);
  await form.getByRole('button', { name: 'Test connection' }).click();
  const result = form.getByTestId('connection-result');
  await expect(result).toContainText(expected, { timeout: 30_000 });
  return (await result.textContent())?.trim() ?? '';
}

test('not running, running without CORS, wrong key, wrong model and wrong path each say what they are', async ({
  page,
}) => {
  await page.goto('/#/settings');
  // Isolated as wllama's threads need, under credentialless.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await saveKey(page, keyed.url, KEY);
  await saveKey(page, otherKey.url, WRONG);

  await testConnection(page, keyed.baseURL, 'echo', '"echo" answered a streamed request');

  const notRunning = await testConnection(
    page,
    'http://127.0.0.1:1/v1',
    'echo',
    'Nothing is listening at 127.0.0.1:1 (connection refused)',
  );

  const withoutCors = await testConnection(
    page,
    noCors.baseURL,
    'echo',
    `The server at ${new URL(noCors.url).host} is running, but it does not allow requests from this page (CORS)`,
  );
  // The server did get the request: the browser only hid the answer.
  expect(noCors.requests.some((r) => r.path === '/v1/chat/completions')).toBe(true);

  const wrongKey = await testConnection(page, otherKey.baseURL, 'echo', 'rejected the key (401)');
  expect(wrongKey).not.toContain(WRONG);

  const wrongModel = await testConnection(
    page,
    keyed.baseURL,
    'no-such-model',
    'does not know the model "no-such-model" (404). It lists: ',
  );

  const wrongPath = await testConnection(
    page,
    `${keyed.url}/v2`,
    'echo',
    `Nothing at ${keyed.url}/v2/chat/completions (404)`,
  );

  const messages = [notRunning, withoutCors, wrongKey, wrongModel, wrongPath];
  expect(new Set(messages).size).toBe(5);

  // What was tested is what a step sends: a streamed chat request, in the ledger as a connection test.
  const chat = keyed.requests.find((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
  expect(chat?.body).toMatchObject({ model: 'echo', stream: true });
});
