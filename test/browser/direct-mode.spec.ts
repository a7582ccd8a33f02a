import { CONTINUE_PROMPT } from '../../src/executor/continuation.ts';
import { logErrors, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Direct mode and Continue in the built app, against the local test provider over real HTTP and real
// IndexedDB, with no conductor model loaded (Direct never plans).

const servers = useServers({ cors: 'strict' });

type Body = { model: string; messages: { role: string; content: string }[] };
const chats = () => servers.provider.requests.filter((r) => r.method === 'POST').map((r) => r.body as Body);

test('Direct mode: a thread talks to the chosen worker with its instructions, named "directly", at 320 px', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  logErrors(page);
  await page.setViewportSize({ width: 320, height: 800 });
  servers.provider.setModel({ id: 'other', behaviour: { kind: 'fixed', text: 'Not this one.' } });
  servers.provider.setModel({ id: 'walker', behaviour: { kind: 'fixed', text: 'Walking, directly.' } });
  const url = servers.provider.baseURL;
  await seedApp(page, {
    pool: [
      modelWorker('w1', url, 'other', 'Other worker'),
      modelWorker('w2', url, 'walker', 'Walker general'),
    ],
  });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Direct').check();
  await composer.getByLabel('Talk to').selectOption({ label: 'Walker general' });
  await composer.getByLabel('Your question').fill('Where to?');
  await composer.getByLabel('Your question').press('Enter');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('run-mode')).toHaveText('Walker general, directly');
  await expect(page.getByTestId('final-answer')).toContainText('Walking, directly.');
  expect(chats().map((b) => b.model)).toEqual(['walker']);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  await saveScreenshot(page, testInfo, 'direct-mode-320.png');

  // The thread's instructions go to the chosen worker with the next message, still sent directly.
  await page.getByTestId('thread-instructions').locator('summary').click();
  await page.getByTestId('thread-instructions-text').fill('Answer in one line.');
  await page.getByTestId('thread-instructions-save').click();
  await expect(page.getByTestId('thread-instructions-status')).toContainText('Saved');
  await expect(page.getByTestId('thread-footer').getByLabel('Talk to')).toHaveValue('w2');
  await page.getByTestId('follow-up-text').fill('And then?');
  await page.getByTestId('follow-up-text').press('Enter');
  await expect(page.getByTestId('thread-turn')).toHaveCount(1);
  await expect.poll(() => chats().length, { timeout: 60_000 }).toBe(2);
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  const second = chats()[1];
  expect(second?.model).toBe('walker');
  expect(second?.messages[0]).toEqual({ role: 'system', content: 'Answer in one line.' });
  await expect(page.getByTestId('run-mode')).toHaveText('Walker general, directly');
});

test('Continue: an answer cut at the output limit gets the rest from the same worker, appended', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  servers.provider.clearRequests();
  servers.provider.setModel({
    id: 'capped',
    behaviour: {
      kind: 'request',
      fn: (body) => {
        const users = (body.messages as Body['messages']).filter((m) => m.role === 'user');
        return users.at(-1)?.content === CONTINUE_PROMPT ? ' five six.' : 'One two three four five';
      },
    },
    outputLimit: { tokens: 4 },
  });
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'capped', 'Counter')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Direct').check();
  await composer.getByLabel('Your question').fill('Count to six.');
  await composer.getByLabel('Your question').press('Enter');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  const answer = page.getByTestId('final-answer');
  await expect(answer).toContainText('One two three four');
  await expect(page.getByTestId('answer-cut')).toContainText('Cut at the output limit.');

  await page.getByTestId('continue-answer').click();
  await expect(answer).toContainText('One two three four five six.', { timeout: 60_000 });
  await expect(run).toHaveAttribute('data-phase', 'done');
  await expect(page.getByTestId('answer-cut')).toHaveCount(0);
  expect(chats().map((b) => b.model)).toEqual(['capped', 'capped']);
  expect(chats()[1]?.messages.slice(-2)).toEqual([
    { role: 'assistant', content: 'One two three four' },
    { role: 'user', content: CONTINUE_PROMPT },
  ]);
});
