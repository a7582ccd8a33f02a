import { sampleRunExport } from './app-fixtures.ts';
import { importRunFile } from './app-steps.ts';
import { expect, test } from './app-test.ts';

test('first visit opens the start screen with the device check and a recommended conductor model', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('start-screen')).toBeVisible();
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  // SwiftShader: the recommendation is the CPU engine, and it says why.
  await expect(page.getByTestId('recommendation')).toContainText(/software renderer|SwiftShader/i);
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'none');
  await expect(page.getByTestId('offline-demo')).toBeDisabled();
});

test('skip link, keyboard navigation and the theme choice, kept across a reload', async ({ page }) => {
  await page.goto('/#/settings');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();

  await page.getByRole('link', { name: 'History' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('history-screen')).toBeVisible();
  await expect(page.getByRole('link', { name: 'History' })).toHaveAttribute('aria-current', 'page');

  await page.goto('/#/settings');
  await page.getByTestId('theme-dark').check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(bg);
  await page.getByTestId('theme-light').check();
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(bg);
});

test('import a run, find it in history, open it: graph, parallel timeline, sanitized step cards; export has no key; delete', async ({
  page,
}) => {
  await importRunFile(page, sampleRunExport());
  await expect(page.getByText('Run imported.')).toBeVisible();
  await expect(page.getByTestId('history-item')).toHaveCount(1);

  await page.getByLabel('Search questions and answers').fill('nothing like this');
  await expect(page.getByTestId('history-item')).toHaveCount(0);
  await page.getByLabel('Search questions and answers').fill('agree');
  await expect(page.getByTestId('history-item')).toHaveCount(1);

  await page.getByRole('link', { name: 'Which answer is best?' }).click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done');
  await expect(page.getByTestId('final-answer')).toContainText('both proposals agree');
  // The graph: three nodes, an image with a description saying steps run in parallel.
  await expect(page.locator('[data-testid^="graph-node-"]')).toHaveCount(3);
  await expect(page.getByRole('img', { name: /can run in parallel/ })).toBeVisible();
  // The timeline shows steps 0 and 1 overlapping and step 2 after both.
  const bar = async (i: number) => {
    const el = page.getByTestId(`timeline-bar-${i}`);
    return {
      start: Number(await el.getAttribute('data-start')),
      end: Number(await el.getAttribute('data-end')),
    };
  };
  const [b0, b1, b2] = [await bar(0), await bar(1), await bar(2)];
  expect(b1.start).toBeLessThan(b0.end);
  expect(b2.start).toBeGreaterThanOrEqual(Math.max(b0.end, b1.end));
  // Markdown rendered (code highlighted), links made safe.
  const card1 = page.getByTestId('step-card-1');
  await expect(card1.locator('pre code.language-js')).toBeVisible();
  const link = page.getByTestId('step-card-0').getByRole('link', { name: 'link' });
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(page.getByTestId('step-metrics-0')).toContainText('20 in · 10 out');

  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const download = await downloadPromise;
  const text = await (await download.createReadStream()).toArray();
  const json = JSON.parse(Buffer.concat(text).toString('utf8'));
  expect(json.format).toBe('baton-run');
  expect(json.steps).toHaveLength(3);

  await page.goto('/#/history');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: /Delete run/ }).click();
  await expect(page.getByTestId('history-item')).toHaveCount(0);
});

test('saving an API key clears the field and shows only its last four characters', async ({ page }) => {
  const key = 'sk-test-abcdefghijklmnop1234WXYZ';
  await page.goto('/#/settings');
  const vault = page.getByTestId('vault-panel');
  await vault.getByLabel('Provider').selectOption('openai');
  const input = vault.getByLabel('API key');
  await expect(input).toHaveAttribute('type', 'password');
  await input.fill(key);
  await vault.getByTestId('save-key').click();
  await expect(vault.getByTestId('key-last4')).toHaveText('…WXYZ');
  await expect(input).toHaveValue('');
  expect(await page.content()).not.toContain(key.slice(0, -4));
  await page.reload();
  await expect(page.getByTestId('vault-panel').getByTestId('key-last4')).toHaveText('…WXYZ');
});

test('passphrase lock from the settings: set, lock, wrong passphrase refused, unlock', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/#/settings');
  const vault = page.getByTestId('vault-panel');
  await vault.getByLabel('API key').fill('sk-test-lockme-0000000000LOCK');
  await vault.getByTestId('save-key').click();
  await expect(vault.getByTestId('key-last4')).toHaveText('…LOCK');
  await vault.getByText('Passphrase lock').click();
  await vault.getByLabel(/New passphrase \(8/).fill('correct horse battery');
  // A typo in the repeat is refused, saying so: nothing is set, and both fields keep what was typed.
  await vault.getByLabel('Repeat the passphrase').fill('correct horse batterz');
  await vault.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(vault.getByRole('alert')).toHaveText(
    'The new passphrase and its repeat differ: type the same passphrase in both fields. Nothing was changed.',
  );
  await expect(vault.getByTestId('lock')).toHaveCount(0);
  await expect(vault.getByLabel(/New passphrase \(8/)).toHaveValue('correct horse battery');
  await vault.getByLabel('Repeat the passphrase').fill('correct horse battery');
  await vault.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(vault.getByText('Passphrase set.')).toBeVisible({ timeout: 30_000 });
  await vault.getByTestId('lock').click();
  await expect(vault.getByTestId('key-last4')).toHaveCount(0);
  await vault.getByLabel('Passphrase', { exact: true }).fill('wrong passphrase');
  await vault.getByTestId('unlock').click();
  await expect(vault.getByRole('alert')).toBeVisible({ timeout: 30_000 });
  await vault.getByLabel('Passphrase', { exact: true }).fill('correct horse battery');
  await vault.getByTestId('unlock').click();
  await expect(vault.getByTestId('key-last4')).toHaveText('…LOCK', { timeout: 30_000 });
});

test('the Bench screen is loaded only when opened, from the nav, and says when the pool is empty', async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  await page.goto('/#/ask');
  await expect(page.getByRole('link', { name: 'Bench' })).toBeVisible();
  expect(scripts.filter((path) => path.includes('BenchRoute'))).toEqual([]);
  await page.getByRole('link', { name: 'Bench' }).click();
  await expect(page.getByTestId('bench-screen')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Bench', level: 1 })).toBeVisible();
  await expect(page.getByText('The pool is empty: add workers in Settings first.')).toBeVisible();
  expect(scripts.filter((path) => path.includes('BenchRoute'))).toHaveLength(1);
  await expect(page.getByRole('link', { name: 'Bench' })).toHaveAttribute('aria-current', 'page');
});
