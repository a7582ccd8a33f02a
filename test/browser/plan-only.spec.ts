import { loadTinyConductor, logErrors, saveKeyUnderPassphrase, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Plan only, through the whole app with the network off: the tiny generated conductor plans in its
// worker, the plan, its graph and its price are shown, and nothing leaves the page (no provider request,
// no ledger entry, no unlock prompt for the locked vault). One action then runs it, asking for the
// passphrase only then.

const KEY = 'sk-plan-only-test-0123456789abcd';
const PASS = 'correct horse battery staple';
const servers = useServers({
  cors: 'strict',
  apiKey: KEY,
  models: [{ id: 'echo', behaviour: { kind: 'echo' } }],
});

/** A priced worker on the keyed provider, its key saved on Settings, the vault put under PASS. */
async function setUp(page: Page): Promise<void> {
  const echo = modelWorker('w1', servers.provider.baseURL, 'echo', 'Echo');
  await seedApp(page, {
    pool: [{ ...echo, price: { inputPerM: 3, outputPerM: 15 } }],
    plan: { maxDepth: 0, maxSteps: 2 },
  });
  await page.goto('/#/settings');
  await saveKeyUnderPassphrase(page, servers.provider.baseURL, KEY, PASS);
}

function chats(): number {
  return servers.provider.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
    .length;
}

test('Plan only with the network off shows the plan, its graph and its price, and sends nothing', async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  await setUp(page);
  // Reloaded, the vault is locked; the conductor is loaded again (from the model server, still online).
  await page.reload();
  await loadTinyConductor(page, servers.models.url);
  await page.goto('/#/ask');
  await expect(page.getByTestId('composer')).toBeVisible();

  const providerOrigin = new URL(servers.provider.baseURL).origin;
  const leaving: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== new URL(page.url()).origin) leaving.push(request.url());
  });
  const chatsBefore = chats();
  await context.setOffline(true);

  const composer = page.getByTestId('composer');
  await expect(composer.getByTestId('plan-only')).toHaveAttribute(
    'aria-keyshortcuts',
    'Control+Enter Meta+Enter',
  );
  await composer.getByLabel('Your question').fill('Say hello.');
  await composer.getByLabel('Your question').press('Control+Enter');

  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('plan-only-note')).toContainText('nothing was sent anywhere');
  await expect(editor.getByTestId('workflow-graph')).toBeVisible();
  await expect(editor.getByTestId('graph-node-0')).toBeVisible();
  await expect(editor.getByTestId('edit-step-0-price')).toHaveText(
    /^Estimated: ≈ \d+ in · 400 out · \$0\.\d+$/,
  );
  await expect(editor.getByTestId('plan-estimate')).toContainText(
    /Estimated price: ≈ \$0\.\d+ for \d steps?/,
  );
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'review');
  await expect(page.getByRole('dialog', { name: 'Unlock the vault' })).toHaveCount(0);

  // Nothing left the page: no request to any other origin, none at the provider, none in the ledger.
  expect(leaving).toEqual([]);
  expect(chats()).toBe(chatsBefore);
  await page.goto('/#/ledger');
  const ledgerRows = page
    .getByTestId('ledger-panel')
    .locator('tbody tr', { hasText: new URL(providerOrigin).host });
  await expect(page.getByTestId('ledger-panel')).not.toContainText('Loading…');
  await expect(ledgerRows).toHaveCount(0);

  // Back online, one action runs it: the passphrase is asked for only now.
  await context.setOffline(false);
  await page.goto('/#/ask');
  await page.getByTestId('plan-editor').getByTestId('run-plan').click();
  const prompt = page.getByRole('dialog', { name: 'Unlock the vault' });
  await expect(prompt).toBeVisible();
  await prompt.getByLabel('Passphrase').fill(PASS);
  await prompt.getByLabel('Passphrase').press('Enter');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  expect(chats()).toBeGreaterThan(chatsBefore);
});
