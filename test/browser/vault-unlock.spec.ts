import {
  answerAtOnce,
  crawlModel,
  logErrors,
  openStoredPlan,
  saveKeyUnderPassphrase,
  storePlan,
  useServers,
} from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// A locked vault (passphrase set, page reloaded) asks for the passphrase where a run needs it, on Run and
// on the resume banner, then goes on: the whole app, a keyed test provider over real HTTP, real IndexedDB.

const KEY = 'sk-unlock-test-0123456789abcd';
const PASS = 'correct horse battery staple';
const servers = useServers({ cors: 'strict', apiKey: KEY, models: [crawlModel(40)] });

/** On Settings: the provider's key saved, then the vault put under PASS. */
const saveKey = (page: Page) => saveKeyUnderPassphrase(page, servers.provider.baseURL, KEY, PASS);

const pool = () => [
  modelWorker('w1', servers.provider.baseURL, 'echo', 'Echo'),
  modelWorker('w2', servers.provider.baseURL, 'crawl', 'Crawl'),
];

/** Two workers on the keyed provider, its key saved, the vault under a passphrase. */
async function setUp(page: Page): Promise<void> {
  await seedApp(page, { pool: pool(), plan: { maxDepth: 0, maxSteps: 2 } });
  await page.goto('/#/settings');
  await saveKey(page);
}

test('a locked vault asks for the passphrase on Run and on Resume, then the run goes on', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  // The plan is stored first (before the app opens), then opened in review once the vault is locked.
  await storePlan(page, {
    question: 'Answer, then elaborate slowly.',
    pool: pool(),
    steps: [
      { worker: 'w1', task: 'Answer briefly.', sees: [] },
      { worker: 'w2', task: 'Elaborate at length.', sees: [0] },
    ],
  });
  await setUp(page);
  await page.reload();
  await openStoredPlan(page, 'Answer, then elaborate slowly.');
  await page.getByTestId('run-plan').click();

  // The prompt opens with focus in it; a wrong passphrase says so and keeps it open, from the keyboard.
  const prompt = page.getByRole('dialog', { name: 'Unlock the vault' });
  await expect(prompt).toBeVisible();
  const field = prompt.getByLabel('Passphrase');
  await expect(field).toBeFocused();
  await page.keyboard.type('wrong horse battery staple');
  await page.keyboard.press('Enter');
  await expect(prompt.getByRole('alert')).toContainText('Wrong passphrase');
  await expect(field).toBeFocused();
  await page.keyboard.type(PASS); // the wrong one is selected, so typing replaces it
  await page.keyboard.press('Enter');
  await expect(prompt).toBeHidden();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'running', {
    timeout: 30_000,
  });
  const firstAnswer = await page.getByTestId('step-card-0').locator('.answer').textContent();
  expect(servers.provider.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

  // Reloaded mid-run, the vault is locked again: Resume asks; Escape declines and changes nothing.
  await page.reload();
  await page.goto('/#/ask');
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Answer, then elaborate slowly.');
  const resumeButton = banner.getByTestId('resume-run');
  await resumeButton.click();
  await expect(prompt).toBeVisible();
  await expect(prompt).toContainText('to resume this run');
  await page.keyboard.press('Escape');
  await expect(prompt).toBeHidden();
  await expect(resumeButton).toBeFocused();
  await expect(banner).toContainText('Answer, then elaborate slowly.');

  const undo = answerAtOnce(servers.provider, crawlModel(40));
  await resumeButton.click();
  await expect(prompt.getByLabel('Passphrase')).toBeFocused();
  await prompt.getByLabel('Passphrase').fill(PASS);
  await prompt.getByRole('button', { name: 'Unlock' }).click();
  await expect(prompt).toBeHidden();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('step-card-0').locator('.answer')).toHaveText(firstAnswer ?? '');
  await expect(page.getByTestId('final-answer')).toContainText('slow words');
  undo();
});

test('Settings changes and removes the passphrase: a wrong current one is refused, keys survive both', async ({
  page,
}) => {
  logErrors(page);
  await page.goto('/#/settings');
  await saveKey(page);
  const keys = page.getByTestId('vault-panel');

  const change = keys.getByTestId('change-passphrase');
  const next = 'a brand new passphrase';
  await change.getByLabel('Current passphrase').fill('not the passphrase');
  await change.getByLabel(/New passphrase/).fill(next);
  // The repeat differs: refused before the current passphrase is even tried.
  await change.getByLabel('Repeat the new passphrase').fill(`${next}!`);
  await change.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(keys.getByRole('alert')).toContainText('The new passphrase and its repeat differ');
  await change.getByLabel('Repeat the new passphrase').fill(next);
  await change.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(keys.getByRole('alert')).toContainText('Wrong passphrase');
  await change.getByLabel('Current passphrase').fill(PASS);
  await change.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase changed.');

  // After a reload only the new passphrase opens the vault, and the key is still there.
  await page.reload();
  await keys.getByLabel('Passphrase', { exact: true }).fill(PASS);
  await keys.getByTestId('unlock').click();
  await expect(keys.getByRole('alert')).toContainText('Wrong passphrase');
  await keys.getByLabel('Passphrase', { exact: true }).fill(next);
  await keys.getByTestId('unlock').click();
  await expect(keys.getByTestId('key-last4')).toHaveText('…abcd');

  await keys.getByText('Passphrase lock').click();
  await change.getByLabel('Current passphrase').fill(next);
  await change.getByRole('button', { name: 'Remove passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase removed.');
  await page.reload();
  await expect(keys.getByTestId('key-last4')).toHaveText('…abcd');
  await expect(page.getByTestId('unlock')).toHaveCount(0);
});
