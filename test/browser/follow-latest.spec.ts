import { logErrors, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// While an answer streams, the page follows its newest text as a chat does; a user who scrolls up to read
// keeps their place and is offered "Jump to latest". The built app, the test provider over real HTTP, with
// the steps open (the suite's setting), where a streaming step's card grows with its text.
const servers = useServers({ cors: 'strict' });

const LONG = Array.from({ length: 150 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n');

const scrollable = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
/** How far below the window's bottom the streaming text ends (0 or less: in view). */
const newestBelow = (page: Page) =>
  page.evaluate(() => {
    const bottoms = [...document.querySelectorAll('[data-streaming="true"]')].map(
      (e) => e.getBoundingClientRect().bottom,
    );
    return bottoms.length === 0 ? Number.NaN : Math.max(...bottoms) - window.innerHeight;
  });
const scrollY = (page: Page) => page.evaluate(() => window.scrollY);

test('a streaming answer is followed to its newest text; scrolled up, the page stays put and offers Jump to latest', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  await page.setViewportSize({ width: 900, height: 600 });
  servers.provider.setModel({
    id: 'long',
    behaviour: { kind: 'fixed', text: LONG },
    latency: { firstTokenMs: 100, perTokenMs: 40 },
  });
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'long', 'Writer')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill('Write at length.');
  await composer.getByLabel('Your question').press('Enter');

  // Longer than the window, and still the newest text is in view: the page followed it down.
  await expect.poll(() => scrollable(page), { timeout: 30_000 }).toBeGreaterThan(900);
  await expect.poll(() => newestBelow(page)).toBeLessThanOrEqual(0);
  expect(await scrollY(page)).toBeGreaterThan(300);
  await expect(page.getByTestId('jump-latest')).toBeHidden();

  // The user scrolls up to read: the page stays there while the answer grows below, out of view.
  await page.mouse.move(450, 300);
  await page.mouse.wheel(0, -500);
  await expect(page.getByTestId('jump-latest')).toBeVisible();
  const kept = await scrollY(page);
  const grownFrom = await scrollable(page);
  await expect.poll(() => scrollable(page)).toBeGreaterThan(grownFrom + 200);
  expect(await scrollY(page)).toBe(kept);
  expect(await newestBelow(page)).toBeGreaterThan(0);

  // Jump to latest follows again, to the end as it grows.
  await page.getByTestId('jump-latest').click();
  await expect(page.getByTestId('jump-latest')).toBeHidden();
  const jumpedFrom = await scrollable(page);
  await expect.poll(() => scrollable(page)).toBeGreaterThan(jumpedFrom + 200);
  await expect.poll(() => newestBelow(page)).toBeLessThanOrEqual(0);

  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled');
  await expect(page.getByTestId('jump-latest')).toBeHidden();
});
