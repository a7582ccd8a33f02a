import { logErrors, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// A key pasted into a question: the page says so before anything is sent, and the user
// removes it or keeps it, with the keyboard. The test provider's request bodies show what left the page.
// Auto mode answers with the one worker and no conductor model, as in threads.spec.ts.

const servers = useServers({ cors: 'strict' });

type Body = { messages: { role: string; content: string }[] };
const chats = () => servers.provider.requests.filter((r) => r.method === 'POST').map((r) => r.body as Body);
const sent = () => JSON.stringify(chats());

// Made-up keys in Groq's and xAI's documented formats (src/providers/key-shapes.ts cites them).
const GROQ = `gsk_${'aB3dE6gH9j'.repeat(5)}xy`;
const XAI = `xai-${'Qw3rTy7uI0'.repeat(8)}`;

async function turnDone(page: Page, answer: string) {
  await expect(page.getByTestId('final-answer')).toContainText(answer, { timeout: 60_000 });
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
}

test('a key in a question is caught before sending: removed, kept, or edited, by keyboard', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  servers.provider.setModel({
    id: 'talk',
    behaviour: {
      kind: 'request',
      fn: (body: Record<string, unknown>) => `Answer ${(body as Body).messages.length}`,
    },
  });
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'talk', 'Talker')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  const question = composer.getByLabel('Your question');
  await question.fill(`Why does ${GROQ} get a 401?`);
  await question.press('Enter');

  // The warning names the provider and shows only the key's last four; the first choice has the focus.
  const warning = composer.getByTestId('key-warning');
  await expect(warning).toContainText(`a Groq key (…${GROQ.slice(-4)})`);
  await expect(warning.getByTestId('key-remove')).toBeFocused();
  expect(chats()).toHaveLength(0);

  // Escape: back to the question, as it was, and nothing sent.
  await page.keyboard.press('Escape');
  await expect(warning).toHaveCount(0);
  await expect(question).toBeFocused();
  await expect(question).toHaveValue(`Why does ${GROQ} get a 401?`);
  expect(chats()).toHaveLength(0);

  // Enter on "Remove it and send": the worker gets "[key removed]", never the key.
  await question.press('Enter');
  await expect(warning.getByTestId('key-remove')).toBeFocused();
  await page.keyboard.press('Enter');
  await turnDone(page, 'Answer 2');
  expect(chats()).toHaveLength(1);
  expect(chats()[0]?.messages[0]?.content).toBe('Why does [key removed] get a 401?');
  expect(sent()).not.toContain(GROQ);
  await expect(page.getByTestId('run')).not.toContainText(GROQ);

  // A follow-up with a key, kept on purpose (Tab to "Send with the key"): it goes as written...
  const followUp = page.getByTestId('follow-up');
  await followUp.getByTestId('follow-up-text').fill(`Then use ${XAI} instead.`);
  await followUp.getByTestId('follow-up-text').press('Enter');
  await expect(followUp.getByTestId('key-warning')).toContainText(`an xAI key (…${XAI.slice(-4)})`);
  expect(chats()).toHaveLength(1);
  // The warning takes the focus once drawn: Tab from there, not from the box it came from.
  await expect(followUp.getByTestId('key-remove')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(followUp.getByTestId('key-keep')).toBeFocused();
  await page.keyboard.press('Enter');
  await turnDone(page, 'Answer 4');
  expect(chats()[1]?.messages.map((m) => m.content)).toContain(`Then use ${XAI} instead.`);

  // ...and, kept, it stays in the next turn's history; the removed one is still "[key removed]" there.
  await followUp.getByTestId('follow-up-text').fill('Thanks.');
  await followUp.getByTestId('follow-up-text').press('Enter');
  await turnDone(page, 'Answer 6');
  const third = chats()[2]?.messages.map((m) => m.content) ?? [];
  expect(third.slice(0, 4)).toEqual([
    'Why does [key removed] get a 401?',
    'Answer 2',
    `Then use ${XAI} instead.`,
    'Answer 4',
  ]);
  expect(sent()).not.toContain(GROQ);
});
