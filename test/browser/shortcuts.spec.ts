import AxeBuilder from '@axe-core/playwright';
import { crawlModel, logErrors, openPlanInReview, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// The page's keys and its Stop, in the built app against the local test provider over real HTTP and real
// IndexedDB. No conductor model is loaded: Auto mode answers with the one worker, and the Stop test runs a
// plan opened in review.

const servers = useServers({
  cors: 'strict',
  models: [
    { id: 'paced', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 100, perTokenMs: 10 } },
    // Still streaming after the checks before the Stop, however slow the machine.
    { ...crawlModel(400), id: 'crawl-long' },
  ],
});

const chatPosts = () =>
  servers.provider.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');

/** Asks `question` in Auto mode (one worker, no planning) and waits for its answer. */
async function askDirect(page: Page, question: string): Promise<void> {
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill(question);
  await composer.getByLabel('Your question').press('Enter');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
}

test('Esc stops a live run: the done step and its answer are kept, nothing more is sent', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  const pool = [
    modelWorker('w1', servers.provider.baseURL, 'paced', 'Paced echo'),
    modelWorker('w3', servers.provider.baseURL, 'crawl-long', 'Crawl'),
  ];
  await seedApp(page, { pool, plan: { maxDepth: 0, maxSteps: 3 } });
  await openPlanInReview(page, {
    question: 'Answer, elaborate, then sum up.',
    pool,
    steps: [
      { worker: 'w1', task: 'Answer briefly.', sees: [] },
      { worker: 'w3', task: 'Elaborate at length.', sees: [0] },
      { worker: 'w1', task: 'Sum up.', sees: [1] },
    ],
  });
  const before = chatPosts().length;
  await page.getByTestId('run-plan').click();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
  const firstAnswer = await page.getByTestId('step-card-0').locator('.answer').textContent();
  expect(firstAnswer).toContain('Answer briefly.');
  // The Stop button is on screen and names its key.
  const stop = page.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeVisible();
  await expect(stop).toHaveAttribute('aria-keyshortcuts', 'Escape');
  // Wherever the focus is (not in a field here): Esc stops the run.
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('Escape');

  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled', { timeout: 15_000 });
  await expect(page.getByTestId('cancel-run')).toHaveCount(0);
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('step-card-0').locator('.answer')).toHaveText(firstAnswer ?? '');
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'cancelled');
  await expect(page.getByTestId('step-card-2')).toHaveAttribute('data-state', 'cancelled');
  // Said in words, as a run stopped at its spend limit says it.
  await expect(page.getByTestId('run-phase')).toHaveText('Stopped');
  await expect(page.getByTestId('step-card-1')).toContainText('Not finished: you stopped the run.');
  // Two requests left (steps 0 and 1), none after the Stop: the last step was never sent.
  const sent = chatPosts().slice(before);
  expect(sent).toHaveLength(2);
  await page.waitForTimeout(1500);
  expect(chatPosts().length - before).toBe(2);
  // The stopped run is stored so: after a reload it is not offered for resume, its done step still there.
  await page.reload();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled');
});

test('the shortcuts sheet opens with ?, lists the keys, passes axe, and Esc closes it with focus back', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.goto('/#/ask');
  const nav = page.getByRole('link', { name: 'History' });
  await nav.focus();
  await page.keyboard.press('?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  for (const what of ['Search your threads', 'Start a new thread', 'Stop the run on screen']) {
    await expect(sheet).toContainText(what);
  }
  const results = await new AxeBuilder({ page }).include('[data-testid="shortcuts-sheet"]').analyze();
  expect(results.violations).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(nav).toBeFocused();
  // Typed in a field, ? is text, not the sheet.
  const box = page.getByLabel('Your question');
  await box.fill('');
  await box.press('?');
  await expect(box).toHaveValue('?');
  await expect(sheet).toBeHidden();
  // Close works too.
  await nav.focus();
  await page.keyboard.press('?');
  await sheet.getByRole('button', { name: 'Close' }).click();
  await expect(sheet).toBeHidden();
  await expect(nav).toBeFocused();
});

test('Ctrl+K goes to the thread search, Ctrl+Shift+O starts a new thread, ↑ puts the last question back', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'paced', 'Paced echo')] });
  await page.goto('/#/ask');
  await askDirect(page, 'Who wrote Hamlet?');

  // ↑ in the empty follow-up box opens the last question to edit, focused, the caret after it.
  const followUp = page.getByTestId('follow-up-text');
  await followUp.focus();
  await page.keyboard.press('ArrowUp');
  const edit = page.getByTestId('edit-turn-text');
  await expect(edit).toBeFocused();
  await expect(edit).toHaveValue('Who wrote Hamlet?');
  await page.keyboard.press('Escape');
  await expect(edit).toHaveCount(0);
  // ↑ in a box with text moves the caret, as ever.
  await followUp.fill('More');
  await followUp.press('ArrowUp');
  await expect(page.getByTestId('edit-turn-text')).toHaveCount(0);
  await followUp.fill('');

  // ↑ in the empty Ask box puts the last question back.
  const ask = page.getByLabel('Your question');
  await ask.focus();
  await page.keyboard.press('ArrowUp');
  await expect(ask).toHaveValue('Who wrote Hamlet?');
  await ask.fill('');

  // Ctrl+Shift+O: a new thread, the Ask box empty under no turn, focused.
  await page.keyboard.press('Control+Shift+O');
  await expect(page.getByTestId('run')).toHaveCount(0);
  await expect(page.getByTestId('thread-footer')).toHaveCount(0);
  await expect(ask).toBeFocused();

  // Ctrl+K on Ask: the search of the thread list beside the conversation.
  await page.keyboard.press('Control+K');
  await expect(page.getByTestId('threads-aside').getByTestId('thread-search')).toBeFocused();
  // From a screen without it: History's search, focused; and again where it already is.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.keyboard.press('Control+K');
  await expect(page).toHaveURL(/#\/history$/);
  const search = page.getByLabel('Search questions and answers');
  await expect(search).toBeFocused();
  await page.getByRole('link', { name: 'History' }).focus();
  await page.keyboard.press('Control+K');
  await expect(search).toBeFocused();
  await search.fill('Hamlet');
  await expect(page.getByTestId('thread-item')).toHaveCount(1);
});
