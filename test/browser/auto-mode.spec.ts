import { createBanditState, update } from '../../src/learning/bandit.ts';
import { logErrors, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Auto mode in the built app, against the local test provider over real HTTP and real storage. No conductor
// model is loaded: auto mode can still answer, by sending the question straight to one worker.
// What Baton learned comes from the answers the user marks good or bad (the last test), or from a file
// imported in Settings.

const servers = useServers({ cors: 'strict' });

test('Auto mode answers with one worker and no planner, and says why', async ({ page }) => {
  test.setTimeout(120_000);
  logErrors(page);
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'echo', 'Parrot')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  // Without a conductor model the planning modes cannot ask; Auto can.
  await expect(page.getByTestId('ask-send')).toBeDisabled();
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill('Who wrote Hamlet?');
  await expect(page.getByTestId('ask-send')).toBeEnabled();
  await composer.getByLabel('Your question').press('Enter');

  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  // The worker reads the question word for word, then the one step's task (echo answers the last turn).
  await expect(page.getByTestId('final-answer')).toContainText('Answer the question.');
  const chats = servers.provider.requests.filter((r) => r.method === 'POST');
  expect(chats).toHaveLength(1);
  expect((chats[0]!.body as { messages: { content: string }[] }).messages[0]!.content).toBe(
    'Who wrote Hamlet?',
  );
  await expect(page.getByTestId('auto-choice')).toHaveText(
    'Auto mode chose Parrot, directly (no planning). Trying Parrot: no outcomes yet for facts questions with it.',
  );
});

test('a new user, whose pool has only the code sandbox, is told to add a worker, in Auto mode too', async ({
  page,
}) => {
  logErrors(page);
  // A first visit, nothing seeded: no conductor model and no cloud worker, the code sandbox on (its default).
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  const hint = composer.locator('#composer-hint');
  await composer.getByLabel('Your question').fill('What is the capital of Australia?');
  for (const mode of ['Conductor', 'Auto', 'Router']) {
    await composer.getByLabel(mode).check();
    await expect(hint).toHaveText(
      'Add a worker to your pool first, or offer the on-device model as one (Settings).',
    );
    await expect(page.getByTestId('ask-send')).toBeDisabled();
  }
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').press('Enter');
  // Nothing was asked: no run, and the question is still in the box.
  await expect(page.getByTestId('run')).toHaveCount(0);
  await expect(composer.getByLabel('Your question')).toHaveValue('What is the capital of Australia?');
});

test('What Baton learned: import, export, reset, and a bad file refused with the reason', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  let state = createBanditState();
  for (let i = 0; i < 4; i++)
    state = update(state, 'Who wrote Hamlet?', 'conductor', undefined, i > 0, 0.004);
  const file = JSON.stringify({ kind: 'baton-learned-state', slider: 0.5, state });

  await page.goto('/#/settings');
  const panel = page.getByTestId('learned-panel');
  await expect(panel.getByTestId('learned-empty')).toBeVisible();

  await panel
    .getByTestId('learned-import')
    .setInputFiles({ name: 'learned.json', mimeType: 'application/json', buffer: Buffer.from(file) });
  await expect(panel.getByTestId('learned-message')).toHaveText(
    'Imported what Baton learned from learned.json.',
  );
  const row = panel.getByTestId('learned-table').locator('tbody tr');
  await expect(row).toHaveCount(1);
  // 3 good of 4, λ = 50 per dollar at the imported slider: (3 − 50 × 0.016) / 4 = 0.55.
  await expect(row).toHaveText(/Facts\s*Conductor\s*4\s*3\s*0\.55/);
  await expect(panel.getByTestId('learned-slider')).toHaveValue('0.5');

  const download = page.waitForEvent('download');
  await panel.getByTestId('learned-export').click();
  const exported = Buffer.concat(await (await (await download).createReadStream()).toArray()).toString(
    'utf8',
  );
  expect(JSON.parse(exported)).toEqual(JSON.parse(file));

  page.once('dialog', (dialog) => void dialog.accept());
  await panel.getByTestId('learned-reset').click();
  await expect(panel.getByTestId('learned-empty')).toBeVisible();

  await panel.getByTestId('learned-import').setInputFiles({
    name: 'wrong.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"kind":"baton-learned-state","slider":2}'),
  });
  await expect(panel.getByTestId('learned-message')).toContainText(
    'wrong.json: This is not a Baton learned-state export: slider',
  );
  await expect(panel.getByTestId('learned-empty')).toBeVisible();

  await panel.getByTestId('learned-import').setInputFiles({
    name: 'baton-learned.json',
    mimeType: 'application/json',
    buffer: Buffer.from(exported),
  });
  await expect(row).toHaveCount(1);
  // Kept across a reload (localStorage).
  await page.reload();
  await expect(page.getByTestId('learned-table').locator('tbody tr')).toHaveCount(1);
});

test('What Baton learned names what the bench taught it, says it learns from the bench too, and never shows -0.00', async ({
  page,
}) => {
  // Two bench items: Mixture-of-Agents answered wrong for a millionth of a dollar, the pipeline right.
  let state = createBanditState();
  state = update(state, 'What is 2 + 2?', 'moa', undefined, false, 0.000_001);
  state = update(state, 'What is 3 + 3?', 'pipeline', undefined, true, 0.002);
  const file = JSON.stringify({ kind: 'baton-learned-state', slider: 0.5, state });
  await page.goto('/#/settings');
  const panel = page.getByTestId('learned-panel');
  await expect(panel).toContainText('the answers you mark Good or Bad, and the items the bench scores');
  await panel
    .getByTestId('learned-import')
    .setInputFiles({ name: 'learned.json', mimeType: 'application/json', buffer: Buffer.from(file) });
  const rows = panel.getByTestId('learned-table').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveText(/^Math\s*Mixture-of-Agents\s*1\s*0\s*0\.00$/);
  await expect(rows.nth(1)).toHaveText(/^Math\s*Plan → execute → verify\s*1\s*1\s*0\.90$/);
  await expect(panel.getByTestId('learned-table')).not.toContainText('-0.00');
  await expect(panel.getByTestId('learned-table')).not.toContainText('moa');
});

test('marking an answer good or bad changes what auto mode says about its next choice', async ({ page }) => {
  test.setTimeout(180_000);
  logErrors(page);
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'echo', 'Parrot')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  const ask = async (question: string) => {
    await composer.getByLabel('Auto').check();
    await composer.getByLabel('Your question').fill(question);
    await composer.getByLabel('Your question').press('Enter');
    await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  };
  const choice = page.getByTestId('auto-choice');

  await ask('Who wrote Hamlet?');
  await expect(choice).toContainText('no outcomes yet');
  await page.getByTestId('mark-good').click();
  await expect(page.getByTestId('mark-good')).toHaveAttribute('aria-pressed', 'true');

  // The good mark is what auto mode now reasons from.
  await ask('Who wrote Macbeth?');
  await expect(choice).toHaveText(
    'Auto mode chose Parrot, directly (no planning). 1 of 1 similar question was answered well by Parrot.',
  );
  await page.getByTestId('mark-bad').click();
  await expect(page.getByTestId('mark-bad')).toHaveAttribute('aria-pressed', 'true');

  await ask('Who wrote Othello?');
  await expect(choice).toContainText('1 of 2 similar questions were answered well by Parrot');
});
