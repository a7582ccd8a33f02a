import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from './app-test.ts';

async function addCustom(page: Page, baseURL: string, model: string, label: string): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(baseURL);
  await form.getByLabel('Model').fill(model);
  await form.getByLabel('Label').fill(label);
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(label);
}

test('a model id that is not in the preset gets no borrowed price: the form says the price is unknown', async ({
  page,
}) => {
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('openai');
  await expect(form.getByLabel('Input $ per million tokens')).not.toHaveValue('');
  await form.getByLabel('Model').fill('my-fine-tune');
  await expect(form.getByLabel('Input $ per million tokens')).toHaveValue('');
  await expect(form.getByLabel('Output $ per million tokens')).toHaveValue('');
  await expect(form.getByTestId('price-unknown')).toContainText('No price is known for “my-fine-tune”');
  await form.getByTestId('add-worker-submit').click();
  const row = page.getByTestId('pool-table').getByRole('row', { name: /my-fine-tune/ });
  await expect(row).toContainText('unknown');
  // A price the user enters is kept.
  await form.getByLabel('Input $ per million tokens').fill('0.5');
  await form.getByLabel('Output $ per million tokens').fill('1.5');
  await expect(form.getByTestId('price-unknown')).toHaveCount(0);
});

test('two Custom hosts are told apart, and a worker can be edited: label, model, base URL, strengths, cost tier', async ({
  page,
}) => {
  await page.goto('/#/settings');
  await addCustom(page, 'http://127.0.0.1:8787/v1', 'echo', 'Local A');
  await addCustom(page, 'http://127.0.0.1:8788/v1', 'echo', 'Local B');
  const table = page.getByTestId('pool-table');
  await expect(table.getByRole('row', { name: /Local A/ })).toContainText('127.0.0.1:8787');
  await expect(table.getByRole('row', { name: /Local B/ })).toContainText('127.0.0.1:8788');

  await page.getByRole('button', { name: 'Edit Local A' }).click();
  const form = page.getByTestId('add-worker');
  await expect(page.getByTestId('worker-form-title')).toBeFocused();
  await expect(page.getByTestId('worker-form-title')).toHaveText('Edit Local A (w1)');
  await expect(form.getByLabel('Base URL')).toHaveValue('http://127.0.0.1:8787/v1');
  const axe = await new AxeBuilder({ page })
    .include('[data-testid="pool-panel"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .analyze();
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
  ).toEqual([]);
  await form.getByLabel('Label').fill('Local A, renamed');
  await form.getByLabel('Model').fill('upper');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:8789/v1');
  await form.getByLabel(/Strengths/).fill('shouts everything');
  await form.getByLabel(/Cost tier/).selectOption('high');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByTestId('worker-form-title')).toHaveText('Add a worker');

  await page.reload();
  const row = page.getByTestId('pool-table').getByRole('row', { name: /Local A, renamed/ });
  await expect(row).toContainText('upper');
  await expect(row).toContainText('127.0.0.1:8789');
  await expect(row.getByLabel(/Strengths of/)).toHaveValue('shouts everything');
  await expect(page.getByTestId('pool-table').getByRole('row')).toHaveCount(3);
  await page.getByRole('button', { name: 'Edit Local A, renamed' }).click();
  await expect(page.getByTestId('add-worker').getByLabel(/Cost tier/)).toHaveValue('high');
  await page.getByTestId('cancel-edit').click();
  await expect(page.getByTestId('worker-form-title')).toHaveText('Add a worker');
});

test('Add to pool clears the form, and the same worker again is refused with a reason', async ({ page }) => {
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:8787/v1');
  await form.getByLabel('Model').fill('echo');
  await form.getByLabel('Label').fill('Local echo');
  await form.getByTestId('add-worker-submit').click();
  const table = page.getByTestId('pool-table');
  await expect(table.getByRole('row', { name: /Local echo/ })).toHaveCount(1);
  // The form starts again for the same provider: nothing of the worker just added is left in it.
  await expect(form.getByTestId('worker-added')).toHaveText('Added “Local echo” to the pool.');
  await expect(form.getByLabel('Provider')).toHaveValue('custom');
  await expect(form.getByLabel('Model')).toHaveValue('');
  await expect(form.getByLabel('Label')).not.toHaveValue('Local echo');
  // Another provider: "Added …" was about the worker before, and goes.
  await form.getByLabel('Provider').selectOption('openai');
  await expect(form.getByTestId('worker-added')).toHaveText('');
  await form.getByLabel('Provider').selectOption('custom');

  // The same worker typed in again is refused, saying why; the pool keeps one.
  await form.getByLabel('Base URL').fill('http://127.0.0.1:8787/v1');
  await form.getByLabel('Model').fill('echo');
  await form.getByLabel('Label').fill('Local echo');
  await form.getByTestId('add-worker-submit').click();
  await expect(form.getByTestId('worker-problem')).toHaveText(
    '“Local echo” is already in the pool with this model at this address. To add another worker for it, give it a label of its own.',
  );
  // Another provider: the refusal was about the draft before it, and goes.
  await form.getByLabel('Provider').selectOption('openai');
  await expect(form.getByTestId('worker-problem')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('pool-table').getByRole('row', { name: /Local echo/ })).toHaveCount(1);
});
