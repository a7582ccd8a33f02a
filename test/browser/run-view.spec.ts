import { startProvider, type TestProvider } from '../provider/server.ts';
import { chainRunExport, fanRunExport } from './app-fixtures.ts';
import { importRunFile } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';

async function openImported(page: Page, file: string): Promise<void> {
  await importRunFile(page, file);
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await page.getByTestId('history-item').getByRole('link').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done');
}

/** Each graph node's box against the graph's scroll box: inside its width, and shown without scrolling. */
async function nodesInBox(page: Page) {
  return page.getByTestId('workflow-graph-scroll').evaluate((box) => {
    const outer = box.getBoundingClientRect();
    return [...box.querySelectorAll('[data-testid^="graph-node-"]')].map((node) => {
      const r = node.getBoundingClientRect();
      return {
        insideWidth: r.left >= outer.left - 0.5 && r.right <= outer.right + 0.5,
        shown: r.top >= outer.top - 0.5 && r.bottom <= outer.bottom + 0.5,
        width: r.width,
      };
    });
  });
}

test('a 5-step chain shows all its nodes in its half-width card, with nothing to scroll', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImported(page, chainRunExport(5));
  const nodes = await nodesInBox(page);
  expect(nodes).toHaveLength(5);
  expect(nodes.every((n) => n.insideWidth && n.shown)).toBe(true);
  for (const node of nodes) expect(node.width).toBeGreaterThanOrEqual(120);
  // The graph still sits in half the run view, beside the timeline.
  const card = await page.getByRole('region', { name: 'Workflow', exact: true }).boundingBox();
  expect(card!.width).toBeLessThan(700);
  const scroller = page.getByTestId('workflow-graph-scroll');
  expect(
    await scroller.evaluate((el) => el.scrollHeight <= el.clientHeight && el.scrollWidth <= el.clientWidth),
  ).toBe(true);
  await expect(page.getByTestId('graph-hidden-steps')).toHaveCount(0);
  await saveScreenshot(
    page.getByRole('region', { name: 'Workflow', exact: true }),
    testInfo,
    'graph-chain-5.png',
  );
});

test("a 15-step chain fits its card's width, says how many steps are below, and scrolls by keyboard", async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImported(page, chainRunExport(15));
  await expect(page.locator('[data-testid^="graph-node-"]')).toHaveCount(15);
  const before = await nodesInBox(page);
  expect(before.every((n) => n.insideWidth)).toBe(true);
  const shown = before.filter((n) => n.shown).length;
  expect(shown).toBeGreaterThanOrEqual(5);
  // The steps out of view are counted under the box, so the user knows it scrolls.
  const hint = page.getByTestId('graph-hidden-steps');
  await expect(hint).toHaveText(new RegExp(`^${15 - shown} more steps below: scroll the graph`));
  const scroller = page.getByTestId('workflow-graph-scroll');
  await expect(scroller).toHaveAttribute('aria-describedby', (await hint.getAttribute('id'))!);
  expect(await scroller.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  // The page does not grow sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  // Keyboard: the box takes focus, End scrolls it to the last step.
  await scroller.focus();
  await expect(scroller).toBeFocused();
  await page.keyboard.press('End');
  await expect.poll(async () => (await nodesInBox(page))[14]!.shown).toBe(true);
  await expect(hint).toHaveText(/steps? above: scroll the graph up/);
  await saveScreenshot(
    page.getByRole('region', { name: 'Workflow', exact: true }),
    testInfo,
    'graph-chain-15.png',
  );
});

test('a plan of eight parallel steps wraps its stage inside the card instead of running off it', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openImported(page, fanRunExport(8));
  const nodes = await nodesInBox(page);
  expect(nodes).toHaveLength(9);
  expect(nodes.every((n) => n.insideWidth && n.shown)).toBe(true);
  const rows = await page
    .locator('[data-testid^="graph-node-"]')
    .evaluateAll((els) => new Set(els.map((el) => Math.round(el.getBoundingClientRect().top))).size);
  // Eight side by side would not fit: the stage takes more than one row, and the aggregator one more.
  expect(rows).toBeGreaterThan(2);
  await saveScreenshot(
    page.getByRole('region', { name: 'Workflow', exact: true }),
    testInfo,
    'graph-fan-8.png',
  );
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

/** How many times each step's card has rendered (test/pages/run.tsx counts from the first call on). */
function cardRenders(page: Page): Promise<Record<number, number>> {
  // A string: this file's global `__run` is the bench's view of the harness, without the counter.
  return page.evaluate('globalThis.__run.countCardRenders()') as Promise<Record<number, number>>;
}

/**
 * The card render counts before and after step `index`'s streamed text grew by 200 characters, and every
 * card's state read in the same task as the counts after.
 */
async function rendersWhileStreaming(page: Page, index: number) {
  const streamed = page.getByTestId(`step-card-${index}`).locator('[data-streaming="true"] p.plain');
  await expect(streamed).toContainText('**bold** w');
  const before = await cardRenders(page);
  const length = await streamed.evaluate((p) => p.textContent?.length ?? 0);
  await expect.poll(() => streamed.evaluate((p) => p.textContent?.length ?? 0)).toBeGreaterThan(length + 200);
  const counted = await page.evaluate(() => ({
    after: (
      globalThis as unknown as { __run: { countCardRenders(): Record<number, number> } }
    ).__run.countCardRenders(),
    states: [0, 1, 2, 3, 4].map((i) =>
      document.querySelector(`[data-testid="step-card-${i}"]`)?.getAttribute('data-state'),
    ),
  }));
  return { before, ...counted };
}

test.describe('a run as it streams (test/pages/run.html: the app run state and run view)', () => {
  let provider: TestProvider;
  const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
  test.beforeAll(async () => {
    provider = await startProvider({
      models: [
        {
          id: 'marked',
          behaviour: { kind: 'fixed', text: `**bold** ${words}` },
          latency: { firstTokenMs: 100, perTokenMs: 10 },
        },
      ],
    });
  });
  test.afterAll(async () => {
    await provider.close();
  });

  test('draws tokens in place without rendering the cards that did not change; markdown once a step ends', async ({
    page,
  }) => {
    await page.goto('/test/pages/run.html');
    await page.waitForFunction(() => globalThis.__run !== undefined);
    await cardRenders(page);
    const run = page.evaluate((base) => globalThis.__run.app(base, 'marked'), provider.baseURL);

    // While the branches' first steps stream, the cards of the steps waiting for them are not rendered
    // again: they show no time until they start.
    const waiting = await rendersWhileStreaming(page, 0);
    expect(waiting.states.slice(2), 'the later steps still waited when the renders were counted').toEqual([
      'queued',
      'queued',
      'queued',
    ]);
    for (const index of [2, 3, 4]) expect(waiting.after[index], `step ${index}`).toBe(waiting.before[index]);
    expect(waiting.after[0]).toBeGreaterThan(waiting.before[0] ?? 0);

    // The join streams after both branches ended: its text is drawn as it came, markdown not yet rendered.
    const join = page.getByTestId('step-card-4');
    await expect(join).toHaveAttribute('data-state', 'running');
    const joining = await rendersWhileStreaming(page, 4);
    // The run's end renders every card (their actions change): the counts say something only while the
    // join still streams.
    expect(joining.states[4], 'the join still streamed when the renders were counted').toBe('running');
    // The ended steps' cards were not rendered again while the join's tokens were drawn...
    for (const index of [0, 1, 2, 3]) {
      expect(joining.after[index], `step ${index}`).toBe(joining.before[index]);
      const card = page.getByTestId(`step-card-${index}`);
      await expect(card).toHaveAttribute('data-state', 'done');
      await expect(card.locator('.answer strong')).toHaveText('bold');
    }
    // ...the join's card was (its token counts), and its text was drawn in place all along.
    expect(joining.after[4]).toBeGreaterThan(joining.before[4] ?? 0);
    await expect(join.locator('.answer strong')).toHaveCount(0);

    expect((await run).phase).toBe('done');
    // Once the step has ended, its answer is rendered as markdown, in its card and as the final answer.
    await expect(join.locator('[data-streaming]')).toHaveCount(0);
    await expect(join.locator('.answer strong')).toHaveText('bold');
    await expect(join.locator('.answer')).toContainText('w399');
    await expect(page.getByTestId('final-answer').locator('strong')).toHaveText('bold');
  });
});
