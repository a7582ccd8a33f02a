import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { logErrors, useServers } from './app-steps.ts';
import { expect, type Locator, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// A thread's turns where the user is: a turn opened from History goes on (an edit, another branch) and
// stands in its place among the others, a follow-up is scrolled to, and a turn a reload cut off is shown in
// its thread. Stored threads are written into IndexedDB as the app keeps them; new turns go to the local
// test provider over real HTTP (Auto mode with one worker: no conductor model is needed).

const servers = useServers({ cors: 'strict' });

type Body = { messages: { role: string; content: string }[] };

/** Answers with the question it was asked (the user turn before the step's task), at some length. */
function talker(lines = 0) {
  return {
    id: 'talk',
    behaviour: {
      kind: 'request' as const,
      fn: (body: Record<string, unknown>) => {
        const asked = (body as Body).messages.at(-2)?.content ?? '?';
        return [`Answer about: ${asked}`, ...longLines(lines)].join('\n\n');
      },
    },
  };
}

function longLines(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `Line ${i + 1} of a long answer.`);
}

/** A thread of `n` done turns `t0`… (questions "Question 1"…), each answered at length by worker w1. */
function storedThread(n: number, pool: WorkerSpec[], last: Record<string, unknown> = {}) {
  const runs = [];
  const steps = [];
  for (let i = 0; i < n; i++) {
    const id = `t${i}`;
    const answer = [`Answer ${i + 1}`, ...longLines(30)].join('\n\n');
    const own = i === n - 1 ? last : {};
    runs.push(
      storedRun(id, i * 1000, {
        threadId: 'th',
        turn: i,
        ...(i > 0 ? { parentRunId: `t${i - 1}` } : {}),
        question: `Question ${i + 1}`,
        answer,
        pool,
        chosenBy: { by: 'auto', strategy: 'single:w1', reason: 'The one worker.' },
        ...own,
      }),
    );
    steps.push(storedStep(id, { text: answer, ...(own.status === 'running' ? { state: 'queued' } : {}) }));
  }
  return { runs, steps };
}

async function seed(page: Page, turns: number, last: Record<string, unknown> = {}) {
  const pool = [modelWorker('w1', servers.provider.baseURL, 'talk', 'Talker')];
  await seedApp(page, { pool });
  const { runs, steps } = storedThread(turns, pool, last);
  await seedVersion1(page, runs, steps);
}

/** The turn that answers `question` is on screen and done. */
async function answered(page: Page, question: string) {
  await expect(page.getByTestId('final-answer')).toContainText(`Answer about: ${question}`, {
    timeout: 60_000,
  });
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
}

async function openFromHistory(page: Page, question: string) {
  await page.getByRole('link', { name: 'History' }).click();
  await page.getByRole('button', { name: `Open run: ${question}` }).click();
}

/** Where an element's top is in the viewport: its bounding box against the window's height. */
async function topInViewport(locator: Locator): Promise<{ top: number; height: number }> {
  const box = await locator.boundingBox();
  const height = await locator.page().evaluate(() => innerHeight);
  return { top: box?.y ?? Number.NaN, height };
}

/**
 * The element's top is on screen, in the viewport's upper half (scrolled to, not merely somewhere below);
 * a pixel above the edge is a scroll to it, rounded.
 */
async function expectScrolledTo(locator: Locator) {
  await expect
    .poll(async () => {
      const { top, height } = await topInViewport(locator);
      return top >= -1 && top < height / 2 ? 'in view' : `top at ${top} of ${height}`;
    })
    .toBe('in view');
}

test('a turn opened from History goes on: an edit of an earlier question and a switch of branches show the run', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  servers.provider.setModel(talker());
  await seed(page, 3);
  await page.goto('/#/history');
  await page.getByRole('button', { name: 'Open run: Question 3' }).click();
  await expect(page.getByTestId('final-answer')).toContainText('Answer 3');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2);

  // Edit the first question: the new branch runs and is on screen (it was a blank page until a reload).
  await page.getByTestId('thread-turn').first().getByTestId('edit-question').click();
  const edit = page.getByTestId('edit-turn-text');
  await edit.fill('Who wrote Othello?');
  await edit.press('Enter');
  await answered(page, 'Who wrote Othello?');
  await expect(page.getByTestId('thread-turns')).toHaveText('1 turn');
  await expect(page.getByTestId('branch-position')).toHaveText('branch 2 of 2');

  // The new branch opened from History, then the other branch: it is on screen, at its end.
  await openFromHistory(page, 'Who wrote Othello?');
  await expect(page.getByTestId('final-answer')).toContainText('Answer about: Who wrote Othello?');
  await page.getByRole('button', { name: 'Previous branch' }).click();
  await expect(page.getByTestId('thread-turns')).toHaveText('3 turns');
  await expect(page.getByTestId('final-answer')).toContainText('Answer 3');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2);
});

test('turn 2 of a 6-turn thread opened from History stands in its place, the later turns after it, scrolled to', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  await seed(page, 6);
  await page.goto('/#/history');
  // The thread is on screen first, at its end (turns 1 to 5 above turn 6).
  await page.getByTestId('open-thread').click();
  await expect(page.getByTestId('thread-turn')).toHaveCount(5);
  await expect(page.getByTestId('final-answer')).toContainText('Answer 6');

  await openFromHistory(page, 'Question 2');
  const run = page.getByTestId('run');
  await expect(page.getByTestId('final-answer')).toContainText('Answer 2');
  await expect(page.getByTestId('thread-turn')).toHaveCount(1);
  await expect(page.getByTestId('thread-turn')).toContainText('Question 1');
  const later = page.getByTestId('later-turn');
  await expect(later).toHaveCount(4);
  await expect(later.getByTestId('turn-question')).toHaveText([
    'Question 3',
    'Question 4',
    'Question 5',
    'Question 6',
  ]);
  await expect(page.getByTestId('thread-turns')).toHaveText('6 turns');
  // In order on the page: turn 1, then turn 2 open, then turns 3 to 6.
  const y = async (locator: Locator) => (await locator.boundingBox())?.y ?? Number.NaN;
  expect(await y(page.getByTestId('thread-turn'))).toBeLessThan(await y(run));
  expect(await y(run)).toBeLessThan(await y(later.first()));
  // Turn 1's long answer is above it: the page is scrolled to turn 2.
  await expectScrolledTo(run);

  // A later turn opens in its place too.
  await later.nth(1).getByTestId('open-turn').click();
  await expect(page.getByTestId('final-answer')).toContainText('Answer 4');
  await expect(page.getByTestId('thread-turn')).toHaveCount(3);
  await expect(page.getByTestId('later-turn')).toHaveCount(2);
  await expectScrolledTo(run);
});

test('a follow-up is scrolled to, and after a reload the turn it cut off is shown in its thread', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  servers.provider.setModel(talker(30));
  await seed(page, 3, { status: 'running', answer: undefined });
  await page.goto('/#/ask');
  // The turn a reload cut off is offered for resume, and shown in its thread under the offer.
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Question 3');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'interrupted');
  await expect(page.getByTestId('thread-turns')).toHaveText('3 turns');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2);
  await expect(banner).toBeInViewport();
  await banner.getByTestId('resume-run').click();
  await answered(page, 'Question 3');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2);

  // A follow-up: the page goes to the new turn, below the long answers before it.
  const box = page.getByTestId('follow-up-text');
  await box.fill('And Macbeth?');
  await box.press('Enter');
  await answered(page, 'And Macbeth?');
  await expect(page.getByTestId('thread-turn')).toHaveCount(3);
  // On screen: scrolled to, then (its steps open and long) followed down to its streaming text.
  await expect(page.getByTestId('run')).toBeInViewport();
});
