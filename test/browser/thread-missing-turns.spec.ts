import { exportThreadJson, type ThreadRun } from '../../src/app/thread-export.ts';
import { goodRun, goodStep } from '../fixtures/run-records.ts';
import { logErrors } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { seedApp } from './seed-app.ts';

// A thread whose first turns were deleted from History one run at a time: the branch left is counted as
// it is, and the page says which turns are gone instead of offering to show them (a button that drew
// nothing). No provider is asked: the thread comes from a file.

const TURNS = 7;

/** A 7-turn thread, each turn a done run after the one before. */
function threadFile(): string {
  const runs: ThreadRun[] = [];
  for (let n = 0; n < TURNS; n++) {
    const id = `turn${n}`;
    runs.push({
      run: goodRun(id, 1_750_000_000_000 + n, {
        question: `Question number ${n + 1}`,
        answer: `Answer number ${n + 1}`,
        threadId: 'cut',
        turn: n,
        ...(n > 0 ? { parentRunId: `turn${n - 1}` } : {}),
      }),
      steps: [goodStep(id, 0, { text: `Answer number ${n + 1}` })],
    });
  }
  const thread = { id: 'cut', schema: 1 as const, title: 'A cut thread', createdAt: 1, updatedAt: 2 };
  return exportThreadJson({ ...thread, leafRunId: `turn${TURNS - 1}` }, runs);
}

test('a branch whose first turns were deleted counts what is left and says what is gone', async ({
  page,
}) => {
  logErrors(page);
  await seedApp(page, {});
  await page.goto('/#/history');
  await page.getByTestId('import-thread-file').setInputFiles({
    name: 'thread.json',
    mimeType: 'application/json',
    buffer: Buffer.from(threadFile()),
  });
  await expect(page.getByTestId('thread-import-message')).toHaveText(`Thread imported (${TURNS} runs).`);

  // Turns 1 to 4 deleted from History, each as a run of its own.
  page.on('dialog', (dialog) => void dialog.accept());
  for (let n = 1; n <= 4; n++) {
    const row = page.getByTestId('history-item').filter({ hasText: `Question number ${n}` });
    await row.getByRole('button', { name: /^Delete run/ }).click();
    await expect(row).toHaveCount(0);
  }
  const item = page.getByTestId('thread-item').filter({ hasText: 'A cut thread' });
  await expect(item.getByTestId('thread-turn-count')).toHaveText('3');

  await item.getByTestId('open-thread').click();
  await expect(page.getByTestId('final-answer')).toContainText('Answer number 7');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2);
  await expect(page.getByTestId('thread-turns')).toHaveText('3 turns');
  await expect(page.getByTestId('thread-missing')).toContainText(
    'Turns 1–4 of this thread are no longer in your history',
  );
  await expect(page.getByTestId('show-earlier')).toHaveCount(0);
});
