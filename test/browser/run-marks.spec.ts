import { expect, test } from './app-test.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// The Good/Bad marks and the run's time on stored runs, seeded straight into IndexedDB.

const T0 = 1_750_000_000_000;
const H = 3_600_000;

test('Good and Bad are drawn icons with their names, offered only for a run with an answer', async ({
  page,
}) => {
  const failedStep = storedStep('failed', { state: 'failed', text: '', error: 'The provider refused it.' });
  await seedVersion1(
    page,
    [
      storedRun('answered', 2000),
      storedRun('failed', 1000, { status: 'failed', answer: undefined, error: 'Step 0 failed.' }),
    ],
    [storedStep('answered'), failedStep],
  );

  await page.goto('/#/run/answered');
  const good = page.getByRole('button', { name: 'Good', exact: true });
  const bad = page.getByRole('button', { name: 'Bad', exact: true });
  await expect(good).toBeVisible();
  await expect(bad).toBeVisible();
  // An icon the app draws, not an emoji a font may lack.
  await expect(good.locator('svg')).toHaveCount(1);
  expect(await good.textContent()).not.toMatch(/\p{Extended_Pictographic}/u);
  expect(await bad.textContent()).not.toMatch(/\p{Extended_Pictographic}/u);
  await page.getByTestId('run').focus();
  await page.keyboard.press('g');
  await expect(good).toHaveAttribute('aria-pressed', 'true');

  // A run that ended without an answer has nothing to mark: no buttons, and `g` does nothing.
  await page.goto('/#/run/failed');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'failed');
  await expect(page.getByTestId('run-mark')).toHaveCount(0);
  await page.getByTestId('run').focus();
  await page.keyboard.press('g');
  await expect(page.getByTestId('run-mark')).toHaveCount(0);
});

test("a resumed run's time is its active time, and its timeline cuts the hours it sat unfinished", async ({
  page,
}) => {
  const step = (index: number, startedAt: number, endedAt: number) =>
    storedStep('resumed', {
      index,
      task: `Step ${index}`,
      sees: index === 0 ? [] : [0],
      timings: { queuedAt: T0 + 1_000, startedAt: T0 + startedAt, endedAt: T0 + endedAt },
    });
  await seedVersion1(
    page,
    [
      storedRun('resumed', 0, {
        plan: {
          steps: [
            { worker: 'w1', task: 'Step 0', sees: [] },
            { worker: 'w1', task: 'Step 1', sees: [0] },
          ],
        },
        totals: { promptTokens: 4, completionTokens: 2, cost: 0, steps: 2, done: 2, failed: 0, cancelled: 0 },
        updatedAt: T0 + 3 * H + 3_000,
      }),
    ],
    // Step 0 ran 2 s; the page was closed; resumed 3 h later, step 1 ran 3 s.
    [step(0, 1_000, 3_000), step(1, 3 * H, 3 * H + 3_000)],
  );
  await page.goto('/#/run/resumed');
  const time = page.getByTestId('run-totals').locator('div').filter({ hasText: 'Time' }).locator('dd');
  await expect(time).toHaveText('6.0 s');
  // Step 1 starts right after the cut, not 3 h along an axis where both bars are slivers.
  await expect(page.getByTestId('timeline-bar-1')).toHaveAttribute('data-start', '2000');
  await expect(page.getByTestId('timeline-breaks')).toContainText('with no step running');
});
