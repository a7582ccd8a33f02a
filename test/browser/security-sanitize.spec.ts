import { HOSTILE_ANSWER } from '../fixtures/hostile-answer.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { sampleRunExport } from './app-fixtures.ts';
import { importRunFile, openPlanInReview } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';

// Worker output is untrusted: HOSTILE_ANSWER tries every usual way to run script or make a request from
// rendered HTML; rendered in the step cards, none of it may execute and no request may leave.

/** Fails the test on any dialog, and records every request to a host that is not ours or the provider's. */
function watch(page: Page, allowedHosts: string[]) {
  const dialogs: string[] = [];
  const foreign: string[] = [];
  const relativeX: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (!allowedHosts.includes(url.host)) foreign.push(request.url());
    if (url.pathname === '/x') relativeX.push(request.url());
  });
  return { dialogs, foreign, relativeX };
}

async function expectInert(container: ReturnType<Page['getByTestId']>) {
  // The raw HTML is shown as text, not parsed.
  await expect(container).toContainText('<script>window.__pwned');
  await expect(container).toContainText('onerror=');
  // Inside the rendered answer itself: the card around it draws its own icons (Good/Bad are inline SVG).
  const answer = container.getByTestId('answer');
  await expect(answer).not.toHaveCount(0);
  for (const tag of ['script', 'img', 'iframe', 'svg', 'style', 'math', 'form', 'object', 'embed']) {
    await expect(answer.locator(tag), `no <${tag}> in the rendered answer`).toHaveCount(0);
  }
  // No element carries an event handler or a javascript: URL.
  const active = await container.evaluate((root) =>
    [...root.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes]
        .filter((a) => /^on/i.test(a.name) || /^\s*javascript:/i.test(a.value) || a.name === 'srcdoc')
        .map((a) => `${el.tagName} ${a.name}=${a.value}`),
    ),
  );
  expect(active).toEqual([]);
  // The one http link survives, made safe.
  const link = container.getByRole('link', { name: 'a plain https link is fine' });
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  // The markdown image became a link the user may choose to follow, not an image loaded by itself.
  await expect(container.getByRole('link', { name: /image: tracker/ })).toHaveCount(1);
  // Markdown links with javascript: lose their href.
  await expect(container.locator('a[href^="javascript"]')).toHaveCount(0);
}

test('hostile markdown in an imported run renders inert', async ({ page, baseURL }) => {
  const seen = watch(page, [new URL(baseURL!).host]);
  await importRunFile(page, sampleRunExport({ answer0: HOSTILE_ANSWER, question: 'Hostile answer' }));
  await page.getByRole('link', { name: 'Hostile answer' }).click();
  const card = page.getByTestId('step-card-0');
  await expect(card.locator('.answer')).toBeVisible();
  await expectInert(card);
  // Give any deferred handler (onerror, onload) time to fire if it existed.
  await page.waitForTimeout(1000);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
  expect(seen.foreign).toEqual([]);
  expect(seen.relativeX).toEqual([]);
});

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'strict',
    models: [{ id: 'hostile', behaviour: { kind: 'fixed', text: HOSTILE_ANSWER } }],
  });
});
test.afterAll(async () => {
  await provider?.close();
});

test('hostile answers from a scripted worker, streamed into the step cards, execute nothing and send nothing', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const seen = watch(page, [new URL(baseURL!).host, new URL(provider.url).host]);
  // A one-step plan opened in review as a stored plan (who wrote it is not the subject), then run.
  const pool = [customWorker({ id: 'w1', baseURL: provider.baseURL, model: 'hostile', label: 'Hostile' })];
  await seedApp(page, { pool });
  await openPlanInReview(page, {
    question: 'Tell me something.',
    pool,
    steps: [{ worker: 'w1', task: 'Tell me something.', sees: [] }],
  });
  await page.getByTestId('run-plan').click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expectInert(page.getByTestId('step-card-0'));
  await expectInert(page.getByTestId('final-answer'));
  await page.waitForTimeout(1000);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
  expect(seen.foreign).toEqual([]);
  expect(seen.relativeX).toEqual([]);
  // And the worker really sent the payload: the provider answered the step.
  expect(provider.requests.some((r) => r.path === '/v1/chat/completions' && r.method === 'POST')).toBe(true);
});
