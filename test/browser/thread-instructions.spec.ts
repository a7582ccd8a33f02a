import AxeBuilder from '@axe-core/playwright';
import { logErrors, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// A thread's standing instructions in the built app, against the local test provider over real HTTP and
// real IndexedDB: set in the thread's Instructions box, they are in the request body of the next turn's
// worker step (as its system message), kept after a reload, and gone from requests once removed. Auto mode
// answers with one worker and no conductor model, so no planning is needed (the planner's short line is
// checked over the real engine host in test/unit/app/thread-instructions.test.ts).

const servers = useServers({ cors: 'strict' });

type Body = { messages: { role: string; content: string }[] };
const chats = () => servers.provider.requests.filter((r) => r.method === 'POST').map((r) => r.body as Body);
const systemOf = (body: Body | undefined) => body?.messages.filter((m) => m.role === 'system') ?? [];

const INSTRUCTIONS = 'Answer as a pirate would.\nNever more than three sentences.';

test("a thread's instructions go to its workers from the next turn on, survive a reload, and can be removed", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  logErrors(page);
  servers.provider.setModel({ id: 'talk', behaviour: { kind: 'fixed', text: 'Arr, an answer.' } });
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'talk', 'Talker')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill('Who wrote Hamlet?');
  await composer.getByLabel('Your question').press('Enter');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  expect(systemOf(chats().at(-1))).toEqual([]);

  // Set in the thread's disclosure, saved when the box loses focus.
  const box = page.getByTestId('thread-instructions');
  await box.locator('summary').click();
  await page.getByLabel('Instructions for every worker in this thread (a system prompt)').fill(INSTRUCTIONS);
  await page.getByTestId('thread-instructions-text').blur();
  await expect(page.getByTestId('thread-instructions-status')).toContainText('Saved');
  await expect(page.getByTestId('thread-instructions-cost')).toContainText('tokens in each worker step');
  await saveScreenshot(page, testInfo, 'thread-instructions.png');
  const axe = await new AxeBuilder({ page })
    .include('[data-testid="thread-instructions"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

  const sent = chats().length;
  await page.getByTestId('follow-up-text').fill('And Macbeth?');
  await page.getByTestId('follow-up-text').press('Enter');
  await expect(page.getByTestId('thread-turn')).toHaveCount(1);
  await expect.poll(() => chats().length, { timeout: 60_000 }).toBeGreaterThan(sent);
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('step-instructions-0')).toContainText("Sent the thread's instructions (");
  const turn2 = chats().slice(sent);
  expect(turn2.length).toBeGreaterThan(0);
  for (const body of turn2) {
    expect(systemOf(body)).toEqual([{ role: 'system', content: INSTRUCTIONS }]);
    expect(body.messages[0]?.role).toBe('system');
  }

  // After a reload the thread opens with them, and the next turn carries them too.
  await page.reload();
  await page.goto('/#/history');
  const item = page.getByTestId('thread-item').filter({ hasText: 'Who wrote Hamlet?' });
  await item.getByTestId('open-thread').click();
  await expect(page.getByTestId('thread')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('thread-instructions').locator('summary').click();
  await expect(page.getByTestId('thread-instructions-text')).toHaveValue(INSTRUCTIONS);

  // Removed (Save with an empty box): the next turn goes without.
  await page.getByTestId('thread-instructions-text').fill('');
  await page.getByTestId('thread-instructions-save').click();
  await expect(page.getByTestId('thread-instructions-status')).toContainText('Removed');
  const before = chats().length;
  await page.getByTestId('follow-up-text').fill('Which is longer?');
  await page.getByTestId('follow-up-text').press('Enter');
  await expect(page.getByTestId('thread-turn')).toHaveCount(2, { timeout: 30_000 });
  // The earlier turn moves up before the new one's request leaves: wait for the request, then its end.
  await expect.poll(() => chats().length, { timeout: 60_000 }).toBeGreaterThan(before);
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  const turn3 = chats().slice(before);
  expect(turn3.length).toBeGreaterThan(0);
  for (const body of turn3) expect(systemOf(body)).toEqual([]);
  await expect(page.getByTestId('step-instructions-0')).toHaveCount(0);
});
