import { chainRunExport, sampleRunExport } from './app-fixtures.ts';
import { FIRST_SCREENS, importOneRun, importRunFile, type Screen } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';

const WIDTH = 390;

/** Every screen, reached as a user would, with what proves it has rendered. */
const SCREENS: Screen[] = [
  ...FIRST_SCREENS,
  { name: 'run', hash: '', ready: (page) => expect(page.getByTestId('final-answer')).toBeVisible() },
  { name: 'bench', hash: '#/bench', ready: (page) => expect(page.getByTestId('bench-screen')).toBeVisible() },
  {
    name: 'settings',
    hash: '#/settings',
    ready: (page) => expect(page.getByTestId('vault-panel')).toBeVisible(),
  },
];

test(`no screen scrolls sideways at ${WIDTH} px, and every nav item is fully visible`, async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: WIDTH, height: 844 });
  const runHref = await importOneRun(page, sampleRunExport());

  for (const screen of SCREENS) {
    await page.goto(`/${screen.name === 'run' ? runHref : screen.hash}`);
    await screen.ready(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${screen.name}: page width`).toBeLessThanOrEqual(WIDTH);
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    await expect(links).toHaveCount(5);
    for (const link of await links.all()) {
      const name = (await link.textContent()) ?? '';
      const seen = await link.evaluate((el) => {
        const box = el.getBoundingClientRect();
        // Clipped by an ancestor that hides its overflow?
        let clipped = false;
        for (let up = el.parentElement; up; up = up.parentElement) {
          const style = getComputedStyle(up);
          if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
          const outer = up.getBoundingClientRect();
          if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5) clipped = true;
        }
        return {
          left: box.left,
          right: box.right,
          clipped,
          textFits: el.scrollWidth <= el.clientWidth + 0.5,
        };
      });
      expect(seen.left, `${screen.name}: "${name}" left edge`).toBeGreaterThanOrEqual(0);
      expect(seen.right, `${screen.name}: "${name}" right edge`).toBeLessThanOrEqual(WIDTH);
      expect(seen.clipped, `${screen.name}: "${name}" clipped by a scroll box`).toBe(false);
      expect(seen.textFits, `${screen.name}: "${name}" text cut`).toBe(true);
    }
  }
});

test(`at ${WIDTH} px a long run and a filled pool stay inside the page; the graph fits its box's width and scrolls down`, async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: WIDTH, height: 844 });
  await page.goto('/#/settings');
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:8787/v1');
  await form.getByLabel('Model').fill('a-model-with-a-rather-long-identifier');
  await form.getByLabel('Label').fill('A worker with a long label for a narrow screen');
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText('A worker with a long label');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
  await saveScreenshot(page, testInfo, 'settings-390.png');

  await importRunFile(page, chainRunExport(15));
  await page.getByTestId('history-item').getByRole('link').click();
  await expect(page.getByTestId('final-answer')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
  const scroller = page.getByTestId('workflow-graph-scroll');
  const box = await scroller.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(WIDTH);
  expect(
    await scroller.evaluate((el) => ({
      down: el.scrollHeight > el.clientHeight,
      sideways: el.scrollWidth > el.clientWidth,
    })),
  ).toEqual({ down: true, sideways: false });
  await expect(page.getByTestId('graph-hidden-steps')).toContainText('more steps below');
  await saveScreenshot(page, testInfo, 'run-390.png');
});
