import AxeBuilder from '@axe-core/playwright';
import { sampleRunExport } from './app-fixtures.ts';
import { FIRST_SCREENS, importOneRun, type Screen } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { openStepsByDefault } from './steps-open.ts';

/** The main screens, each reached the way a user would, with what proves it has rendered. */
const SCREENS: Screen[] = [
  ...FIRST_SCREENS,
  {
    name: 'run',
    hash: '',
    ready: async (page) => {
      await expect(page.getByTestId('final-answer')).toBeVisible();
      await expect(page.locator('pre code.language-js')).toBeVisible();
    },
  },
  {
    name: 'settings',
    hash: '#/settings',
    ready: (page) => expect(page.getByTestId('vault-panel')).toBeVisible(),
  },
  {
    name: 'ledger',
    hash: '#/ledger',
    ready: (page) => expect(page.getByTestId('ledger-panel')).not.toContainText('Loading'),
  },
];

// One page for both color schemes: what is checked is how each screen is drawn, not a first load, and the
// run they show is imported once.
test.describe.configure({ mode: 'serial' });
let page: Page;
let runHref: string | null;
test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  await openStepsByDefault(context);
  page = await context.newPage();
  runHref = await importOneRun(page, sampleRunExport());
});
test.afterAll(async () => {
  await page?.context().close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`main screens have no serious or critical axe violations (${colorScheme})`, async () => {
    const testInfo = test.info();
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme });

    for (const screen of SCREENS) {
      await page.goto(`/${screen.name === 'run' ? runHref : screen.hash}`);
      await screen.ready(page);
      // The theme follows the system by default: the emulated scheme must be what is shown.
      const scheme = await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
      expect(scheme).toBe(colorScheme);
      await saveScreenshot(page, testInfo, `${screen.name}-${colorScheme}.png`);
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      // The screen with violations, as drawn, for whoever reads the failure.
      if (bad.length > 0)
        await testInfo.attach(`${screen.name}-${colorScheme}.png`, {
          body: await page.screenshot({ fullPage: true }),
          contentType: 'image/png',
        });
      expect(
        bad.map((v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
        })),
        `${screen.name} (${colorScheme})`,
      ).toEqual([]);
    }
  });
}
