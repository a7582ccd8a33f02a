import AxeBuilder from '@axe-core/playwright';
import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { loadTinyConductor, logErrors } from './app-steps.ts';
import { expect, type Request, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';

// "Compare planners" end to end in the whole app: the tiny generated GGUF in the real CPU engine inside the
// conductor worker plans a sample of the labelled set, real IndexedDB keeps the figures. The tiny model's
// plans are nonsense, so its figures mean nothing; the test checks the mechanics: disabled without a
// model, progress to the end, a row per model, nothing sent, cancel, and the row after a reload.

let models: ModelServer;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(async () => {
  await models?.close();
});

test('compare planners: disabled without a model; with the tiny model a sample runs to the end, sends nothing, cancels, and its row survives a reload', async ({
  page,
}, testInfo) => {
  // The tiny model takes seconds per plan on this loaded machine: generous, never a speed check.
  test.setTimeout(900_000);
  logErrors(page);
  await page.goto('/#/bench');
  const section = page.getByTestId('compare-planners');
  await expect(section.getByRole('button', { name: 'Run on the loaded model' })).toBeDisabled();
  await expect(section.getByTestId('compare-planners-reason')).toContainText(
    'Load a conductor model on Start',
  );
  await expect(section).toContainText('No model measured yet.');

  await loadTinyConductor(page, models.url);
  await page.goto('/#/bench');
  await section.getByLabel('Questions').selectOption('3');
  const run = section.getByRole('button', { name: /^Run on / });
  await expect(run).toBeEnabled();
  const model = ((await run.textContent()) ?? '').replace(/^Run on /, '');
  expect(model).not.toBe('');

  // Nothing leaves the page while the conductor plans: no request to another origin.
  const origin = new URL(page.url()).origin;
  const sent: string[] = [];
  const watch = (request: Request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) sent.push(request.url());
  };
  page.on('request', watch);
  await run.focus();
  await page.keyboard.press('Enter');
  const progress = section.getByTestId('compare-planners-progress');
  await expect(progress).toHaveAttribute('data-state', 'running');
  await expect(progress).toHaveAttribute('data-state', 'done', { timeout: 600_000 });
  page.off('request', watch);
  expect(sent).toEqual([]);
  await expect(section.getByTestId('compare-planners-state')).toHaveText('Done: 3 questions planned');
  await expect(section.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '3');

  const rows = section.getByTestId('compare-planners-results').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  await expect(row.getByRole('rowheader')).toContainText(model);
  await expect(row.locator('[data-figure="questions"]')).toHaveText('3');
  for (const figure of ['valid', 'shape', 'fit']) {
    await expect(row.locator(`[data-figure="${figure}"]`)).toHaveText(/^\d{1,3}%$/);
  }
  await expect(row.locator('[data-figure="tokens"]')).toHaveText(/^\d+$/);
  await expect(row.locator('[data-figure="time"]')).not.toHaveText('—');
  const figures = await row.locator('td[data-figure]').allTextContents();

  // Why the figures are what they are, per question, opened from the keyboard.
  const detail = section.getByTestId('compare-planners-detail');
  await detail.locator('summary').focus();
  await page.keyboard.press('Enter');
  await expect(detail).toHaveAttribute('open', '');
  await expect(detail.locator('tbody tr')).toHaveCount(3);
  await expect(detail.locator('tbody tr').first()).toContainText('What is the capital of Australia?');

  const axe = await new AxeBuilder({ page })
    .include('[data-testid="compare-planners"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

  // A bigger sample, cancelled once a question is planned: the run stops, the scores so far stay.
  await section.getByLabel('Questions').selectOption('10');
  await run.click();
  // Any question from the second on, with some still to plan: a question can take less than the
  // expectation's polling interval, so waiting for exactly the second could miss it.
  await expect(section.getByTestId('compare-planners-state')).toContainText(/Planning [2-7] of 10/, {
    timeout: 300_000,
  });
  await section.getByRole('button', { name: 'Cancel' }).click();
  await expect(progress).toHaveAttribute('data-state', 'cancelled', { timeout: 60_000 });
  await expect(section.getByTestId('compare-planners-state')).toContainText('Cancelled after');
  await expect(run).toBeEnabled();

  // The figures are kept: after a reload the model's row is there again, with what the store held.
  const kept = await row.locator('td[data-figure]').allTextContents();
  await page.reload();
  await expect(rows).toHaveCount(1);
  await expect(row.getByRole('rowheader')).toContainText(model);
  await expect(row.locator('td[data-figure]')).toHaveText(kept);
  // The first question of the 10 is the first of the 3 again: it replaced its score, so still 3 questions.
  expect(Number(kept[0])).toBeGreaterThanOrEqual(3);
  expect(figures).toHaveLength(kept.length);
  await saveScreenshot(section, testInfo, 'compare-planners.png');
});
