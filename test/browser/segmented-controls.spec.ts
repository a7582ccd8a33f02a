import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// Where a radio's hit point lands must not depend on the fonts a machine has: a fresh machine with only
// DejaVu and Liberation put the Auto radio's 1-pixel box under the neighbouring label, so clicking it
// (as Playwright's check() and a user's pointer do) reached the wrong label. Each segmented radio's own
// centre, and each edge of its label, must hit that radio.
async function hitProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    for (const input of document.querySelectorAll<HTMLInputElement>('.segmented input')) {
      const label = input.closest('label');
      if (!label) {
        problems.push(`${input.name}: no label`);
        continue;
      }
      const name = label.textContent?.trim() ?? input.value;
      const own = (x: number, y: number) => {
        // The radio itself, not merely its label: a click's target must be the control (Playwright's
        // check() refuses a point where the label "intercepts pointer events").
        return document.elementFromPoint(x, y) === input;
      };
      label.scrollIntoView({ block: 'center' });
      const box = input.getBoundingClientRect();
      if (!own(box.x + box.width / 2, box.y + box.height / 2)) problems.push(`${name}: its radio is covered`);
      // Each edge's middle, just inside: the group's rounded corners clip the labels' own corners.
      const l = label.getBoundingClientRect();
      const [midX, midY] = [l.left + l.width / 2, l.top + l.height / 2];
      for (const [x, y] of [
        [l.left + 3, midY],
        [l.right - 3, midY],
        [midX, l.top + 3],
        [midX, l.bottom - 3],
      ] as const)
        if (!own(x, y))
          problems.push(
            `${name}: (${Math.round(x - l.left)}, ${Math.round(y - l.top)}) in its label is not its own`,
          );
    }
    return problems;
  });
}

// One page of the app for the three screens: what is checked is how each screen's radios are laid out, not
// a first load, and a page per screen was mostly the time to open it.
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
});
test.afterAll(() => page?.close());

for (const [screen, path, count] of [
  ['Ask', '/#/ask', 3],
  ['Settings', '/#/settings', 3],
  ['Bench', '/#/bench', 2],
] as const) {
  test(`${screen}: each segmented radio's hit area is its own label, whatever the fonts`, async () => {
    await page.goto(path);
    const radios = page.locator('.segmented input');
    await expect(radios.first()).toBeVisible();
    expect(await radios.count()).toBeGreaterThanOrEqual(count);
    expect(await hitProblems(page)).toEqual([]);
    // A click on the last radio's own box selects it (the click that timed out on a fresh machine).
    await radios.last().click();
    await expect(radios.last()).toBeChecked();
  });
}
