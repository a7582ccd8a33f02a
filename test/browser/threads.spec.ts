import { logErrors, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// A thread in the built app, against the local test provider over real HTTP and real IndexedDB. Auto mode
// answers the first question with one worker and no conductor model (none is loaded here), and every
// follow-up goes back to that worker ("Same worker as the last turn"), so no planning is needed at all.

const servers = useServers({ cors: 'strict' });

type Body = { messages: { role: string; content: string }[] };

/** Answers with the question it was asked (the user turn before the step's task), so turns tell apart. */
function talker(latency?: { firstTokenMs: number; perTokenMs: number }) {
  return {
    id: 'talk',
    behaviour: {
      kind: 'request' as const,
      fn: (body: Record<string, unknown>) => {
        const messages = (body as Body).messages;
        return `Answer about: ${messages.at(-2)?.content ?? '?'}`;
      },
    },
    ...(latency ? { latency } : {}),
  };
}

const chats = () => servers.provider.requests.filter((r) => r.method === 'POST').map((r) => r.body as Body);

async function turnDone(page: Page) {
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
}

async function followUp(page: Page, question: string) {
  const box = page.getByTestId('follow-up-text');
  await box.fill(question);
  await box.press('Enter');
}

/** The turn that answers `question` is on screen and done (not the turn before it, still shown a moment). */
async function answered(page: Page, question: string) {
  await expect(page.getByTestId('final-answer')).toContainText(`Answer about: ${question}`, {
    timeout: 60_000,
  });
  await turnDone(page);
}

test('ask, follow up twice, branch by editing, switch branches, resume after a reload, export and import', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  servers.provider.setModel(talker());
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'talk', 'Talker')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill('Who wrote Hamlet?');
  await composer.getByLabel('Your question').press('Enter');
  await turnDone(page);
  await expect(page.getByTestId('final-answer')).toContainText('Answer about: Who wrote Hamlet?');

  // Follow-up 1: the worker gets turn 1 as chat history, and the reason line says why it went there.
  await followUp(page, 'And Macbeth?');
  await expect(page.getByTestId('thread-turn')).toHaveCount(1);
  await answered(page, 'And Macbeth?');
  await expect(page.getByTestId('auto-choice')).toContainText('Same worker as the last turn.');
  // An empty follow-up does nothing.
  await followUp(page, '   ');
  await expect(page.getByTestId('thread-turns')).toHaveText('2 turns');

  // Follow-up 2 reuses the first answer: it is in the request, before the new question.
  await followUp(page, 'Which is longer?');
  await answered(page, 'Which is longer?');
  const third = chats()
    .at(-1)!
    .messages.map((m) => m.content);
  expect(third).toEqual([
    'Who wrote Hamlet?',
    'Answer about: Who wrote Hamlet?',
    'And Macbeth?',
    'Answer about: And Macbeth?',
    'Which is longer?',
    'Answer the question.',
  ]);
  await expect(page.getByTestId('thread-turns')).toHaveText('3 turns');
  // Which turns went and why: nothing matches "longer", so the newest, as before.
  await expect(page.getByTestId('step-history-0')).toHaveText(
    /^Sent 2 earlier turns of this thread \([^)]* tokens\): turns 1 \(recent\), 2 \(newest\)\.$/,
  );

  // Edit the first question: a new branch from the start; the old one is kept.
  await page.getByTestId('thread-turn').first().getByTestId('edit-question').click();
  const edit = page.getByTestId('edit-turn-text');
  await edit.fill('Who wrote Othello?');
  await edit.press('Enter');
  await answered(page, 'Who wrote Othello?');
  await expect(page.getByTestId('thread-turns')).toHaveText('1 turn');
  await expect(page.getByTestId('branch-position')).toHaveText('branch 2 of 2');
  // Switch back: the old branch, at its end.
  await page.getByRole('button', { name: 'Previous branch' }).click();
  await expect(page.getByTestId('thread-turns')).toHaveText('3 turns');
  await expect(page.getByTestId('final-answer')).toContainText('Answer about: Which is longer?');

  // A slow turn, cut off by a reload: it is offered for resume, and the turns before it are intact.
  servers.provider.setModel(talker({ firstTokenMs: 4_000, perTokenMs: 50 }));
  await followUp(page, 'Summarise the thread.');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'running', { timeout: 30_000 });
  await page.reload();
  servers.provider.setModel(talker());
  await page.goto('/#/ask');
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Summarise the thread.');
  await banner.getByTestId('resume-run').click();
  await answered(page, 'Summarise the thread.');
  await expect(page.getByTestId('thread-turns')).toHaveText('4 turns');
  await expect(page.getByTestId('thread-turn')).toHaveCount(3);
  const resumed = chats()
    .at(-1)!
    .messages.map((m) => m.content);
  expect(resumed.slice(0, 2)).toEqual(['Who wrote Hamlet?', 'Answer about: Who wrote Hamlet?']);

  // Export the whole thread, delete it, import it back: every turn and branch returns.
  const download = page.waitForEvent('download');
  await page.getByTestId('export-thread-json').click();
  const file = Buffer.concat(await (await (await download).createReadStream()).toArray()).toString('utf8');
  const exported = JSON.parse(file) as { format: string; version: number; runs: unknown[] };
  expect(exported).toMatchObject({ format: 'baton-thread', version: 1 });
  expect(exported.runs).toHaveLength(5);
  await page.goto('/#/history');
  const item = page.getByTestId('thread-item').filter({ hasText: 'Who wrote Hamlet?' });
  await expect(item.getByTestId('thread-turn-count')).toHaveText('4');
  page.once('dialog', (dialog) => void dialog.accept());
  await item.getByRole('button', { name: /Delete thread/ }).click();
  await expect(page.getByTestId('thread-item')).toHaveCount(0);
  await page.getByTestId('import-thread-file').setInputFiles({
    name: 'thread.json',
    mimeType: 'application/json',
    buffer: Buffer.from(file),
  });
  await expect(page.getByTestId('thread-import-message')).toHaveText('Thread imported (5 runs).');
  // A file of an unknown layout is refused, naming its version.
  await page.getByTestId('import-thread-file').setInputFiles({
    name: 'future.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ ...JSON.parse(file), version: 9 })),
  });
  await expect(page.getByTestId('thread-import-message')).toContainText('schema version 9');
  await page.getByTestId('open-thread').first().click();
  await expect(page.getByTestId('thread-turns')).toHaveText('4 turns');
  await expect(page.getByTestId('thread-turn')).toHaveCount(3);
});
