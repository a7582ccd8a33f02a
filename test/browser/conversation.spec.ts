import AxeBuilder from '@axe-core/playwright';
import { crawlModel, logErrors, useServers } from './app-steps.ts';
import { expect, type Page, type TestInfo, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { modelWorker, seedApp } from './seed-app.ts';
import { ANSWER_FIRST } from './steps-open.ts';

// The conversation as a new user meets it, in the built app against the local test provider over real
// HTTP and real IndexedDB: answers first, each with its quiet line that opens the machinery in place; the
// threads beside it (a drawer on a narrow screen); saved prompts inserted with `/`. Auto mode answers with
// one worker and no conductor model, and a follow-up goes back to that worker: no planning is needed. These
// specs start from the app's own defaults (the others keep the machinery open: playwright.config.ts).
test.use(ANSWER_FIRST);

const servers = useServers({ cors: 'strict' });

type Body = { messages: { role: string; content: string }[] };

/** Answers with the question it was asked (the user turn before the step's task), so turns tell apart. */
const TALKER = {
  id: 'talk',
  behaviour: {
    kind: 'request' as const,
    fn: (body: Record<string, unknown>) => `Answer about: ${(body as Body).messages.at(-2)?.content ?? '?'}`,
  },
};

async function seedTalker(page: Page, extra: Parameters<typeof modelWorker>[] = []) {
  await seedApp(page, {
    pool: [
      modelWorker('w1', servers.provider.baseURL, 'talk', 'Talker'),
      ...extra.map((args) => modelWorker(...args)),
    ],
  });
}

async function askNew(page: Page, question: string) {
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill(question);
  await composer.getByLabel('Your question').press('Enter');
  await expect(page.getByTestId('final-answer')).toContainText(`Answer about: ${question}`);
}

async function followUp(page: Page, question: string) {
  await page.getByTestId('follow-up-text').fill(question);
  await page.getByTestId('follow-up-text').press('Enter');
  await expect(page.getByTestId('final-answer')).toContainText(`Answer about: ${question}`);
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done');
}

/**
 * No serious or critical axe violation on the page as it is now, in the light and the dark theme (the
 * theme follows the system's by default), each one's screenshot kept when asked for.
 */
async function axeClean(page: Page, testInfo: TestInfo, name: string, only?: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await saveScreenshot(page, testInfo, `${name}-${colorScheme}.png`);
    const axe = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']);
    const results = await (only ? axe.include(only) : axe).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      bad.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })),
      `${name} (${colorScheme})`,
    ).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: null });
}

test('20 turns read as a conversation, each answer under its question with a quiet line that opens its steps in place', async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  logErrors(page);
  servers.provider.setModel(TALKER);
  await seedTalker(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/#/ask');
  await askNew(page, 'Question 1?');
  const run = page.getByTestId('run');
  const line = run.getByTestId('turn-line');
  // The answer first; its plan and steps behind one line.
  await expect(line).toHaveText(/^Talker, directly · cost unknown · [\d.]+ m?s$/);
  await expect(line).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('step-card-0')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Workflow', exact: true })).toHaveCount(0);

  // Opened: the plan's graph, timeline, step card, costs and the run's own requests, in place; closed again.
  await line.click();
  await expect(line).toHaveAttribute('aria-expanded', 'true');
  await expect(run.getByTestId('step-card-0')).toContainText('Answer about: Question 1?');
  await expect(run.getByRole('region', { name: 'Workflow', exact: true })).toBeVisible();
  await expect(run.getByTestId('run-cost')).toBeVisible();
  await expect(run.getByTestId('run-requests').locator('tbody tr')).toHaveCount(1);
  await axeClean(page, testInfo, 'answer-steps-open-1280');
  await line.click();
  await expect(line).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('step-card-0')).toHaveCount(0);

  // Each next turn is followed: the new answer is on screen under the turns before it.
  await followUp(page, 'Question 2?');
  await expect(run).toBeInViewport();
  await axeClean(page, testInfo, 'conversation-1280');
  for (let i = 3; i <= 20; i++) {
    await followUp(page, `Question ${i}?`);
    await expect(run).toBeInViewport();
    await expect(line).toHaveAttribute('aria-expanded', 'false');
  }
  await expect(page.getByTestId('thread-turns')).toHaveText('20 turns');
  const turns = page.getByTestId('thread-turn');
  await expect(turns).toHaveCount(19);
  // An earlier turn: question, answer, and its own quiet line, which opens that turn's steps in place.
  const first = turns.first();
  await expect(first.getByTestId('turn-question')).toHaveText('Question 1?');
  const earlierLine = first.getByTestId('turn-line');
  // (An earlier turn's line is its stored summary's: for a worker without a price it has read $0 where the
  // turn's own totals said unknown, the summary read as the follow-up started; the summary decides, not the line.)
  await expect(earlierLine).toHaveText(/^1 step · (\$0|cost unknown)$/);
  await earlierLine.click();
  await expect(first.getByTestId('step-card-0')).toContainText('Answer about: Question 1?');
  await earlierLine.click();
  await expect(first.getByTestId('step-card-0')).toHaveCount(0);

  // Settings can keep the machinery open: the next answer shows its steps without a click.
  await page.goto('/#/settings');
  await page.getByTestId('steps-open-toggle').check();
  await page.goto('/#/ask');
  await expect(page.getByTestId('turn-line').last()).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('run').getByTestId('step-card-0')).toBeVisible();
});

test('a live answer shows the step writing now and a progress line; stopped, its line says so in words', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  servers.provider.setModel(crawlModel(200));
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'crawl', 'Crawler')] });
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer.getByLabel('Your question').fill('Tell me slowly.');
  await composer.getByLabel('Your question').press('Enter');
  const line = page.getByTestId('turn-line');
  await expect(line).toHaveText(/^Step 1: Crawler · 0 of 1 step done · /);
  await expect(page.getByTestId('live-step')).toContainText('slow words');
  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled');
  await expect(line).toHaveText(/^Crawler, directly · .* · stopped at step 1$/);
});

test('threads beside the conversation at 1280 px: new, search, rename, pin (kept after a reload), delete', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  logErrors(page);
  servers.provider.setModel(TALKER);
  await seedTalker(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#/ask');
  const aside = page.getByTestId('threads-aside');
  await expect(aside).toBeVisible();
  await expect(page.getByTestId('threads-drawer-open')).toHaveCount(0);
  await askNew(page, 'Who wrote Hamlet?');
  await aside.getByTestId('new-thread').click();
  await expect(page.getByLabel('Your question')).toBeFocused();
  await askNew(page, 'How deep is the sea?');
  const items = aside.getByTestId('thread-item');
  await expect(items).toHaveCount(2);
  // The thread on screen is marked; the newest is first until one is pinned.
  await expect(items.first().getByTestId('open-thread')).toHaveAttribute('aria-current', 'true');
  await expect(items.first()).toContainText('How deep is the sea?');

  await items.nth(1).getByTestId('pin-thread').click();
  await expect(items.first()).toContainText('Who wrote Hamlet?');
  await expect(items.first().getByTestId('pin-thread')).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  await expect(aside.getByTestId('thread-item').first()).toContainText('Who wrote Hamlet?');
  await expect(aside.getByTestId('thread-item').first()).toHaveAttribute('data-pinned', 'true');

  // Rename the second thread in the list.
  await items.nth(1).getByTestId('rename-listed-thread-start').click();
  await aside.getByTestId('rename-listed-thread-text').fill('The sea');
  await aside.getByTestId('rename-listed-thread-text').press('Enter');
  await expect(items.nth(1).getByTestId('open-thread')).toHaveText('The sea');

  // Search: a title, and an answer's words (History's search over every turn).
  const search = aside.getByTestId('thread-search');
  await search.fill('sea');
  await expect(items).toHaveCount(1);
  await search.fill('answer about hamlet');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('Who wrote Hamlet?');
  await search.fill('');
  await expect(items).toHaveCount(2);
  await axeClean(page, testInfo, 'threads-aside-1280');

  // Open one, then delete the other.
  await items.first().getByTestId('open-thread').click();
  await expect(page.getByTestId('final-answer')).toContainText('Answer about: Who wrote Hamlet?');
  page.once('dialog', (dialog) => void dialog.accept());
  await items
    .nth(1)
    .getByRole('button', { name: /^Delete thread/ })
    .click();
  await expect(items).toHaveCount(1);
});

{
  const width = 390;
  test('threads in a drawer at 390 px (and 320): it opens from a button, Esc closes it and the focus goes back', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    logErrors(page);
    servers.provider.setModel(TALKER);
    await seedTalker(page);
    await page.setViewportSize({ width, height: 740 });
    await page.goto('/#/ask');
    await askNew(page, 'Who wrote Hamlet?');
    await expect(page.getByTestId('threads-aside')).toHaveCount(0);
    const opener = page.getByTestId('threads-drawer-open');
    await opener.click();
    const drawer = page.getByTestId('threads-drawer');
    await expect(drawer).toBeVisible();
    await expect(opener).toHaveAttribute('aria-expanded', 'true');
    await expect(drawer.getByTestId('thread-item')).toHaveCount(1);
    // The focus is in the drawer and stays there (a modal dialog): Tab does not leave it.
    for (let i = 0; i < 8; i++) await page.keyboard.press('Tab');
    expect(await drawer.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(sideways).toBe(false);
    await axeClean(page, testInfo, `threads-drawer-${width}`);
    // At 320 px too, nothing scrolls sideways with the drawer open.
    await page.setViewportSize({ width: 320, height: 640 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
    await expect(drawer.getByTestId('new-thread')).toBeInViewport();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();

    // A new thread from the drawer: it closes, the Ask box empty and focused.
    await opener.click();
    await drawer.getByTestId('new-thread').click();
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('run')).toHaveCount(0);
    // Back to the thread from the drawer; pin and delete work there as beside the conversation.
    await opener.click();
    await drawer.getByTestId('pin-thread').click();
    await expect(drawer.getByTestId('pin-thread')).toHaveAttribute('aria-pressed', 'true');
    await drawer.getByTestId('open-thread').click();
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('final-answer')).toContainText('Answer about: Who wrote Hamlet?');
    await opener.click();
    page.once('dialog', (dialog) => void dialog.accept());
    await drawer.getByRole('button', { name: /^Delete thread/ }).click();
    await expect(drawer.getByText('No threads yet.')).toBeVisible();
  });
}

test('/ at the start of an empty question box inserts a saved prompt (a listbox: arrows, Enter, Esc)', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  logErrors(page);
  await seedTalker(page);
  await page.goto('/#/settings/prompts');
  const panel = page.getByTestId('saved-prompts');
  for (const [name, text] of [
    ['Summarise', 'Summarise the following in three lines:'],
    ['Code review', 'Review this code for bugs and say why each is one:'],
  ]) {
    await panel.getByLabel('Prompt name').fill(name!);
    await panel.getByLabel('Prompt text').fill(text!);
    await panel.getByTestId('saved-prompt-save').click();
  }
  await expect(panel.getByTestId('saved-prompt')).toHaveCount(2);
  // A name used twice is refused, and says why.
  await panel.getByLabel('Prompt name').fill('summarise');
  await panel.getByLabel('Prompt text').fill('Again.');
  await panel.getByTestId('saved-prompt-save').click();
  await expect(panel.getByTestId('saved-prompt-message')).toContainText('already named “Summarise”');
  await axeClean(page, testInfo, 'saved-prompts-settings', '[data-testid="saved-prompts"]');

  await page.goto('/#/ask');
  const box = page.getByRole('combobox', { name: 'Your question' });
  const popup = page.getByRole('listbox', { name: 'Saved prompts' });
  await box.press('/');
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  await expect(popup.getByRole('option')).toHaveText([/^Code review/, /^Summarise/]);
  await expect(popup.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  await axeClean(page, testInfo, 'saved-prompts-popup', '[data-testid="composer"]');
  // Typing filters; ↓ moves; Enter inserts the prompt's text in place of what was typed.
  await box.pressSequentially('s');
  await expect(popup.getByRole('option')).toHaveCount(1);
  await box.press('Backspace');
  await expect(popup.getByRole('option')).toHaveCount(2);
  await box.press('ArrowDown');
  await expect(box).toHaveAttribute('aria-activedescendant', 'question-prompt-1');
  await box.press('Enter');
  await expect(box).toHaveValue('Summarise the following in three lines:');
  await expect(popup).toBeHidden();
  await expect(page.getByTestId('run')).toHaveCount(0);
  // Esc closes the list and leaves what was typed; a / further in is only a character.
  await box.fill('');
  await box.press('/');
  await expect(popup).toBeVisible();
  await box.press('Escape');
  await expect(popup).toBeHidden();
  await expect(box).toHaveValue('/');
  await box.fill('a/b');
  await expect(box).toHaveAttribute('aria-expanded', 'false');

  // The follow-up box under an answer takes them the same way.
  servers.provider.setModel(TALKER);
  await askNew(page, 'Who wrote Hamlet?');
  const next = page.getByRole('combobox', { name: 'Follow up' });
  await next.press('/');
  await next.pressSequentially('code');
  await next.press('Enter');
  await expect(next).toHaveValue('Review this code for bugs and say why each is one:');
});
