import { seedLedger } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';

// The egress ledger shows a hundred rows a page. In the middle of Settings they made the page about
// 10,000 px tall and pushed Planning, Spending and Appearance far below; it has a page of its own now.

/** Settings as drawn: the page's height and where the Appearance card starts. */
async function settingsLayout(page: Page) {
  await page.goto('/#/settings');
  await expect(page.getByTestId('vault-panel')).toBeVisible();
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  // The storage estimate arrives on its own, and its figures can take the line a line further down.
  await expect(page.getByTestId('storage-status')).toContainText('used of');
  return page.evaluate(() => ({
    height: document.documentElement.scrollHeight,
    appearance: document.getElementById('theme-title')!.getBoundingClientRect().top + scrollY,
  }));
}

test('Settings keeps its height however long the ledger is: the ledger has a page of its own', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const before = await settingsLayout(page);
  // The ledger's page opens the ledger database; then it gets 150 requests, more than a page of rows.
  await page.goto('/#/ledger');
  await expect
    .poll(() => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name)))
    .toContain('baton-ledger');
  await seedLedger(page, 150);

  const after = await settingsLayout(page);
  expect(after.height).toBe(before.height);
  expect(after.appearance).toBe(before.appearance);
  await expect(page.getByTestId('ledger-panel')).toHaveCount(0);
  // The rows are on the ledger's page, a hundred at a time.
  await page.goto('/#/ledger');
  await expect(page.getByTestId('ledger-panel').locator('tbody tr')).toHaveCount(100);
});

test("the ledger is reached from Settings by keyboard, and Settings' section list moves focus to a card", async ({
  page,
}) => {
  await page.goto('/#/settings');
  const sections = page.getByRole('navigation', { name: 'Settings sections' });
  await expect(sections.getByRole('link')).toHaveText([
    'Pool',
    'API keys',
    'Tools',
    'Conductor model',
    'Model storage',
    'Planning',
    'Spending',
    'Saved prompts',
    'What Baton learned',
    'Backups',
    'Appearance',
    'Egress ledger',
    'This device',
  ]);
  // A section link stays on Settings and puts focus on the card's heading, scrolled into view.
  await sections.getByRole('link', { name: 'Appearance' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#theme-title')).toBeFocused();
  await expect(page.locator('#theme-title')).toBeInViewport();
  await expect(page).toHaveURL(/#\/settings\/appearance$/);
  // The section's address opens Settings at that card, from another screen too.
  await page.goto('/#/ask');
  await page.goto('/#/settings/planning');
  await expect(page.locator('#planning-title')).toBeFocused();

  await sections.getByRole('link', { name: 'Egress ledger' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#ledger-link-title')).toBeFocused();
  // Tab from the card's heading reaches its link; Enter opens the ledger's page.
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('open-ledger')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/ledger$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Egress ledger');
  await expect(page.getByTestId('ledger-panel')).not.toContainText('Loading');
  // Under Settings in the header, with the way back.
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }),
  ).toHaveAttribute('aria-current', 'page');
  await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByTestId('settings-screen')).toBeVisible();
});
