import { expect, type Page, test } from '@playwright/test';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';

// A locked vault (passphrase set, page reloaded) asks for the passphrase where a run needs it, on Ask and
// on the resume banner, then goes on: the whole app, the tiny generated conductor, a keyed test provider
// over real HTTP, real IndexedDB.

const KEY = 'sk-unlock-test-0123456789abcd';
const PASS = 'correct horse battery staple';
let models: ModelServer;
let provider: TestProvider;

test.beforeAll(async () => {
  models = await startModelServer();
  provider = await startProvider({
    cors: 'strict',
    apiKey: KEY,
    models: [
      {
        id: 'crawl',
        behaviour: { kind: 'fixed', text: 'slow words '.repeat(40) },
        latency: { firstTokenMs: 200, perTokenMs: 150 },
      },
    ],
  });
});
test.afterAll(async () => {
  await models?.close();
  await provider?.close();
});

function logErrors(page: Page): void {
  page.on('pageerror', (error) => console.log('[pageerror]', error.message));
}

async function loadTinyConductor(page: Page): Promise<void> {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(models.url);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready', {
    timeout: 60_000,
  });
}

async function addWorker(page: Page, model: string, label: string): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(provider.baseURL);
  await form.getByLabel('Model').fill(model);
  await form.getByLabel('Label').fill(label);
  await form.getByLabel(/Strengths/).fill(`answers like ${model}`);
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(label);
}

/** Two workers on the keyed provider, its key saved, the vault under a passphrase. */
async function setUp(page: Page): Promise<void> {
  await page.goto('/#/settings');
  // Short plans without `self` steps: random weights write nonsense, and the test edits the plan anyway.
  await page.getByLabel(/Self-check depth/).selectOption('0');
  await page.getByLabel('Most steps in a plan').selectOption('2');
  await addWorker(page, 'echo', 'Echo');
  await addWorker(page, 'crawl', 'Crawl');
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('custom');
  await keys.getByLabel('Server URL').fill(provider.baseURL);
  await keys.getByLabel('API key').fill(KEY);
  await keys.getByTestId('save-key').click();
  await expect(keys.getByTestId('key-last4')).toHaveText('…abcd');
  await keys.getByText('Passphrase lock').click();
  await keys.getByLabel(/New passphrase/).fill(PASS);
  await keys.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase set.');
}

async function editPlan(page: Page, steps: Array<{ worker: string; task: string; sees: number[] }>) {
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible({ timeout: 120_000 });
  for (let count = await editor.locator('fieldset.edit-step').count(); count > 1; count--) {
    await editor.getByRole('button', { name: `Remove step ${count - 1}` }).click();
  }
  for (const [index, step] of steps.entries()) {
    if (index > 0) await editor.getByRole('button', { name: 'Add a step' }).click();
    const fieldset = editor.getByTestId(`edit-step-${index}`);
    await fieldset.getByLabel('Worker').selectOption(step.worker);
    await fieldset.getByLabel('Task').fill(step.task);
    if (index > 0) {
      const all = fieldset.getByLabel('all earlier steps');
      if (await all.isChecked()) await all.uncheck();
      for (let seen = 0; seen < index; seen++) {
        await fieldset.getByLabel(`step ${seen}`, { exact: true }).setChecked(step.sees.includes(seen));
      }
    }
  }
}

test('a locked vault asks for the passphrase on Ask and on Resume, then the run goes on', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  await setUp(page);
  await page.reload();
  await loadTinyConductor(page);

  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByTestId('review-toggle').check();
  await composer.getByLabel('Your question').fill('Answer, then elaborate slowly.');
  await composer.getByLabel('Your question').press('Enter');
  await editPlan(page, [
    { worker: 'w1', task: 'Answer briefly.', sees: [] },
    { worker: 'w2', task: 'Elaborate at length.', sees: [0] },
  ]);
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
  expect(provider.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

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

  await resumeButton.click();
  await expect(prompt.getByLabel('Passphrase')).toBeFocused();
  await prompt.getByLabel('Passphrase').fill(PASS);
  await prompt.getByRole('button', { name: 'Unlock' }).click();
  await expect(prompt).toBeHidden();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('step-card-0').locator('.answer')).toHaveText(firstAnswer ?? '');
  await expect(page.getByTestId('final-answer')).toContainText('slow words');
});

test('Settings changes and removes the passphrase: a wrong current one is refused, keys survive both', async ({
  page,
}) => {
  logErrors(page);
  await page.goto('/#/settings');
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('custom');
  await keys.getByLabel('Server URL').fill(provider.baseURL);
  await keys.getByLabel('API key').fill(KEY);
  await keys.getByTestId('save-key').click();
  await expect(keys.getByTestId('key-last4')).toHaveText('…abcd');
  await keys.getByText('Passphrase lock').click();
  await keys.getByLabel(/New passphrase/).fill(PASS);
  await keys.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase set.');

  const change = keys.getByTestId('change-passphrase');
  const next = 'a brand new passphrase';
  await change.getByLabel('Current passphrase').fill('not the passphrase');
  await change.getByLabel(/New passphrase/).fill(next);
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
