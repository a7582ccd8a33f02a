import { expect, type Page, test } from '@playwright/test';
import { chainRunExport } from './app-fixtures.ts';
import { importRunFile } from './app-steps.ts';

async function openImported(page: Page, file: string): Promise<void> {
  await importRunFile(page, file);
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await page.getByTestId('history-item').getByRole('link').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done');
}

test('a 15-step chain is drawn at a readable size in its own keyboard-scrollable box', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImported(page, chainRunExport(15));
  await expect(page.locator('[data-testid^="graph-node-"]')).toHaveCount(15);
  for (const index of [0, 7, 14]) {
    const box = await page.getByTestId(`graph-node-${index}`).locator('rect').first().boundingBox();
    expect(box, `node ${index}`).not.toBeNull();
    expect(box!.width, `node ${index} width`).toBeGreaterThanOrEqual(150);
    expect(box!.height, `node ${index} height`).toBeGreaterThanOrEqual(52);
  }
  // The graph scrolls inside its box; the page does not grow sideways.
  const scroller = page.getByTestId('workflow-graph-scroll');
  const sizes = await scroller.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(sizes.scroll).toBeGreaterThan(sizes.client);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  // Keyboard: Tab reaches the box, the arrow keys scroll it.
  await scroller.focus();
  await expect(scroller).toBeFocused();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
});

test('the graph, the timeline and the step cards name workers by their labels, not ids', async ({ page }) => {
  await openImported(page, chainRunExport(3));
  await expect(page.getByTestId('graph-node-0')).toContainText('0. Drafting model');
  await expect(page.getByTestId('graph-node-1')).toContainText('1. Checking model');
  await expect(page.getByRole('img', { name: /Step 1 \(Checking model\) sees step 0/ })).toBeVisible();
  await expect(page.getByTestId('timeline-label-0')).toHaveText('0. Drafting model');
  await expect(page.getByTestId('timeline-label-0')).toHaveAttribute(
    'title',
    'Drafting model (worker id: w1)',
  );
  const heading = page.getByTestId('step-card-1').getByRole('heading');
  await expect(heading).toHaveText('Step 1 · Checking model');
  await expect(page.locator('.steps')).not.toContainText('· w1');
});
