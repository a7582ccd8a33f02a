import { expect, type Page, test } from '@playwright/test';
import { limitPlans, loadTinyConductor, logErrors, useServers } from './app-steps.ts';

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

/** On Settings: a priced worker on the keyed provider, its key saved, the vault put under PASS. */
async function setUp(page: Page): Promise<void> {
  await limitPlans(page, { selfCheckDepth: '0', maxSteps: '2' });
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(servers.provider.baseURL);
  await form.getByLabel('Model').fill('echo');
  await form.getByLabel('Label').fill('Echo');
  await form.getByLabel(/Strengths/).fill('answers like echo');
  await form.getByLabel('Input $ per million tokens').fill('3');
  await form.getByLabel('Output $ per million tokens').fill('15');
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText('Echo');
  const keys = page.getByTestId('vault-panel');
  await keys.getByLabel('Provider').selectOption('custom');
  await keys.getByLabel('Server URL').fill(servers.provider.baseURL);
  await keys.getByLabel('API key').fill(KEY);
  await keys.getByTestId('save-key').click();
  await expect(keys.getByTestId('key-last4')).toHaveText('…abcd');
  await keys.getByText('Passphrase lock').click();
  await keys.getByLabel(/New passphrase/).fill(PASS);
  await keys.getByRole('button', { name: 'Set passphrase' }).click();
  await expect(keys.getByRole('status')).toHaveText('Passphrase set.');
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
