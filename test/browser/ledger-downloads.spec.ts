import { type ModelServer, startModelServer } from '../fixtures/model-server.ts';
import { seedLedger } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';

// The egress ledger in the built app: the conductor thread's model downloads (and a failed one) are in
// it, marked as model downloads; the CPU engine's failed download names its cause; the ledger pages.

let models: ModelServer;
test.beforeAll(async () => {
  models = await startModelServer();
});
test.afterAll(() => models.close());
test.describe.configure({ mode: 'serial' });

async function loadCustomModel(page: Page, url: string, libUrl?: string): Promise<void> {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('custom');
  await setup.getByLabel(/Model URL/).fill(url);
  if (libUrl) await setup.getByLabel(/Model library URL/).fill(libUrl);
  await setup.getByTestId('load-model').click();
}

test('model downloads and a failed one are in the ledger; the CPU download failure names its cause', async ({
  page,
}) => {
  const host = new URL(models.url).host;
  const missing = models.url.replace('tiny.gguf', 'missing.gguf');
  await loadCustomModel(page, missing);
  const error = page.getByTestId('model-error');
  await expect(error).toContainText(
    `Could not download missing.gguf: ${host} has no file at /missing.gguf (HTTP 404): check the model URL.`,
    { timeout: 60_000 },
  );

  await loadCustomModel(page, models.url);
  await expect(page.getByTestId('model-ready')).toBeVisible({ timeout: 60_000 });
  expect(models.downloads()).toBe(1);

  await page.goto('/#/ledger');
  const rows = page.getByTestId('ledger-panel').locator('tbody tr', { hasText: 'model download' });
  await expect(rows).toHaveCount(2);
  // Newest first: the download, then the failed attempt.
  await expect(rows.nth(0)).toContainText(host);
  await expect(rows.nth(0)).toContainText('200');
  // Bytes in: the whole tiny model (some hundred KB).
  await expect(rows.nth(0)).toContainText(/[1-9]\d* KB/);
  await expect(rows.nth(1)).toContainText(host);
  await expect(rows.nth(1)).toContainText('404: HTTP 404');
});

test('the ledger shows 100 entries a page, newest first, and pages to older ones', async ({ page }) => {
  await page.goto('/#/ledger');
  await expect(page.getByTestId('ledger-panel')).not.toContainText('Loading');
  // 230 more entries, written to the same IndexedDB store the app writes.
  await seedLedger(page, 230);
  await page.reload();
  const panel = page.getByTestId('ledger-panel');
  const pages = panel.getByTestId('ledger-pages');
  const total = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open('baton-ledger');
        open.onsuccess = () => {
          const count = open.result.transaction('entries').objectStore('entries').count();
          count.onsuccess = () => {
            open.result.close();
            resolve(count.result);
          };
        };
      }),
  );
  expect(total).toBeGreaterThanOrEqual(230);
  await expect(pages).toContainText(`1–100 of ${total}`);
  await expect(panel.locator('tbody tr')).toHaveCount(100);
  await expect(panel.locator('tbody tr').first()).toContainText('seed229.example');
  await expect(pages.getByRole('button', { name: 'Newer' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Older' }).click();
  await expect(pages).toContainText(`101–200 of ${total}`);
  await expect(panel.locator('tbody tr').first()).toContainText('seed129.example');
  await pages.getByRole('button', { name: 'Older' }).click();
  await expect(pages).toContainText(`201–${total} of ${total}`);
  await expect(pages.getByRole('button', { name: 'Older' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Newer' }).click();
  await expect(pages).toContainText(`101–200 of ${total}`);
});

test("web-llm's downloads (through the Cache API) are in the ledger too, and a missing file is named", async ({
  page,
}) => {
  const host = new URL(models.url).host;
  const base = models.url.replace('/tiny.gguf', '/mlc-model');
  await loadCustomModel(page, base, models.url.replace('/tiny.gguf', '/mlc-model.wasm'));
  const error = page.getByTestId('model-error');
  await expect(error).toContainText(
    `has no file at /mlc-model/resolve/main/mlc-chat-config.json (HTTP 404)`,
    {
      timeout: 60_000,
    },
  );
  await page.goto('/#/ledger');
  const row = page
    .getByTestId('ledger-panel')
    .locator('tbody tr', { hasText: 'model download' })
    .filter({ hasText: '404' })
    .first();
  await expect(row).toContainText(host);
  await expect(row).toContainText('404: HTTP 404');
});
