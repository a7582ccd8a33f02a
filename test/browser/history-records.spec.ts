import { sampleRunExport } from './app-fixtures.ts';
import { expect, type Page, test } from './app-test.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// One malformed run record emptied History for good. Real IndexedDB, the built app.

function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('History with one corrupt record among good ones lists the good ones and says one was skipped', async ({
  page,
}) => {
  const errors = pageErrors(page);
  const { totals: _totals, ...noTotals } = storedRun('no-totals', 2000);
  await seedVersion1(
    page,
    [storedRun('good-1', 1000), noTotals, storedRun('good-2', 3000), storedRun('good-3', 4000)],
    [storedStep('good-1'), storedStep('no-totals'), storedStep('good-2'), storedStep('good-3')],
  );
  await page.goto('/#/history');
  await expect(page.getByTestId('history-item')).toHaveCount(3);
  await expect(page.getByTestId('history-list')).toContainText('Stored question good-3');
  const skipped = page.getByTestId('history-skipped');
  await expect(skipped).toContainText('1 stored run could not be read and was skipped');
  await expect(skipped).toContainText('totals');

  // It stays that way after a reload, and the good runs open.
  await page.reload();
  await expect(page.getByTestId('history-item')).toHaveCount(3);
  await expect(page.getByTestId('history-skipped')).toContainText('1 stored run');
  await page.getByRole('link', { name: 'Stored question good-1' }).click();
  await expect(page.getByTestId('final-answer')).toContainText('Stored answer good-1');

  // The damaged run itself, opened by its address, says why it cannot be shown; the app lives on.
  await page.goto('/#/run/no-totals');
  await expect(page.getByText(/This run cannot be shown: .*totals/)).toBeVisible();
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page.getByTestId('history-item')).toHaveCount(3);
  expect(errors).toEqual([]);
});

test('a running run with no question is not offered for resume, and the Ask screen still works', async ({
  page,
}) => {
  const errors = pageErrors(page);
  await seedVersion1(
    page,
    [
      storedRun('null-question', 1000, { status: 'running', question: null }),
      storedRun('garbage-steps', 1500, { status: 'running' }),
      storedRun('resumable', 2000, { status: 'running', question: 'Resume me' }),
    ],
    [
      storedStep('null-question', { state: 'queued' }),
      storedStep('garbage-steps', { timings: null, text: { html: '<b>' }, sees: 'all of them' }),
      storedStep('resumable', { state: 'queued' }),
    ],
  );
  await page.goto('/#/ask');
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Resume me');
  await expect(banner.getByTestId('resume-run')).toHaveCount(1);
  await expect(page.getByTestId('composer')).toBeVisible();
  expect(errors).toEqual([]);
});

test('importing the same run twice keeps one copy and says so', async ({ page }) => {
  await page.goto('/#/history');
  const file = { name: 'run.json', mimeType: 'application/json', buffer: Buffer.from(sampleRunExport()) };
  await page.getByTestId('import-file').setInputFiles(file);
  await expect(page.getByText('Run imported.')).toBeVisible();
  await page.getByTestId('import-file').setInputFiles(file);
  await expect(page.getByText('This run is already in your history; it was not added again.')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('history-item')).toHaveCount(1);
});

test('a screen that throws shows its error in place; the rest of the page keeps working', async ({
  page,
}) => {
  await page.goto('/test/pages/boundary.html');
  await expect(page.getByTestId('screen-error')).toContainText(
    'This screen (broken) failed: cannot read this record',
  );
  await expect(page.getByTestId('sibling')).toHaveText('the rest of the app');
  await page.getByTestId('sibling-button').click();
  await expect(page.getByTestId('sibling-count')).toHaveText('1');
});

test('History renders a page of runs at a time and searches every stored run', async ({ page }) => {
  const runs = Array.from({ length: 120 }, (_, i) =>
    storedRun(`r${i}`, i * 10, { question: `Question ${i} ${i === 7 ? 'needle' : 'hay'}` }),
  );
  await seedVersion1(page, runs, []);
  await page.goto('/#/history');
  const items = page.getByTestId('history-item');
  await expect(items).toHaveCount(50);
  await expect(items.first()).toContainText('Question 119');
  await page.getByTestId('history-more').click();
  await expect(items).toHaveCount(100);
  await page.getByTestId('history-more').click();
  await expect(items).toHaveCount(120);
  await expect(page.getByTestId('history-more')).toHaveCount(0);

  await page.reload();
  await expect(items).toHaveCount(50);
  // The run is far past the first page: search reads the whole history, not what is on screen.
  await page.getByLabel('Search questions and answers').fill('NEEDLE');
  await expect(items).toHaveCount(1);
  await expect(items).toContainText('Question 7 needle');
  await expect(page.getByText('1 run match.')).toBeVisible();
  await page.getByLabel('Search questions and answers').fill('');
  await expect(items).toHaveCount(50);
});

test("a plan's note (the conductor's plan could not be used) is shown again when its run is reopened", async ({
  page,
}) => {
  const planNote = {
    text: "The conductor's plan could not be used, so Echo answers the question alone.",
    details: ['Step 0 is a self-check before any work to check.'],
  };
  await seedVersion1(
    page,
    [storedRun('noted', 1000, { planNote }), storedRun('plain', 2000)],
    [storedStep('noted'), storedStep('plain')],
  );
  await page.goto('/#/history');
  await page.getByRole('link', { name: 'Stored question noted' }).click();
  await expect(page.getByTestId('final-answer')).toContainText('Stored answer noted');
  const note = page.getByTestId('plan-note');
  await expect(note).toContainText(planNote.text);
  await note.locator('summary').click();
  await expect(note).toContainText(planNote.details[0]!);
  // A run stored without one (every record written before notes were stored) opens as before, without one.
  await page.goto('/#/run/plain');
  await expect(page.getByTestId('final-answer')).toContainText('Stored answer plain');
  await expect(page.getByTestId('plan-note')).toHaveCount(0);
});
