import { expect, type Page, test } from '@playwright/test';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';

// Review mode against real parts (the tiny GGUF conductor in its worker, the test provider over HTTP):
// the review must accept the plan language the conductor itself writes, `self` steps included.

let models: ModelServer;
let provider: TestProvider;

test.beforeAll(async () => {
  models = await startModelServer();
  provider = await startProvider({ cors: 'strict', models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });
});
test.afterAll(async () => {
  await models?.close();
  await provider?.close();
});

async function loadTinyConductor(page: Page): Promise<void> {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(models.url);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
}

async function addWorker(page: Page, label: string): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(provider.baseURL);
  await form.getByLabel('Model').fill('echo');
  await form.getByLabel('Label').fill(label);
  await form.getByLabel(/Strengths/).fill('echoes');
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(label);
}

test("review accepts the conductor's own self-check step and runs it (issue 10, bug 2)", async ({ page }) => {
  test.setTimeout(240_000);
  await loadTinyConductor(page);
  await page.goto('/#/settings');
  await page.getByLabel(/Self-check depth/).selectOption('1');
  await page.getByLabel('Most steps in a plan').selectOption('2');
  await addWorker(page, 'Echo one');

  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByTestId('review-toggle').check();
  await composer.getByLabel('Your question').fill('Say hello.');
  await composer.getByLabel('Your question').press('Enter');

  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible({ timeout: 120_000 });
  // Make the plan: one worker step, then the conductor's self-check of it.
  while ((await editor.locator('fieldset.edit-step').count()) > 1) {
    const count = await editor.locator('fieldset.edit-step').count();
    await editor.getByRole('button', { name: `Remove step ${count - 1}` }).click();
  }
  const first = editor.getByTestId('edit-step-0');
  await first.getByLabel('Worker').selectOption('w1');
  await first.getByLabel('Task').fill('Say hello.');
  await editor.getByRole('button', { name: 'Add a step' }).click();
  const check = editor.getByTestId('edit-step-1');
  await check.getByLabel('Worker').selectOption('self');
  await check.getByLabel('Task').fill('Check the greeting.');
  const all = check.getByLabel('all earlier steps');
  if (await all.isChecked()) await all.uncheck();
  await check.getByLabel('step 0', { exact: true }).check();

  await expect(editor.getByTestId('edit-step-1-issues')).toHaveCount(0);
  await expect(editor.getByTestId('plan-issues')).toHaveCount(0);
  await expect(editor.getByTestId('run-plan')).toBeEnabled();
  await editor.getByTestId('run-plan').click();

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('step-card-1')).toContainText('Check the greeting.');
  await expect(page.getByTestId('final-answer')).toBeVisible();
});
