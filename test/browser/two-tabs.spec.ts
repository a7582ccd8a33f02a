import { startProvider, type TestProvider } from '../provider/server.ts';
import { chatRequestsFor } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// Two tabs of one browser profile (one context: one IndexedDB, one set of Web Locks)
// both saw a run cut off by a reload; resuming it in both sent every unfinished step twice.

let provider: TestProvider;

test.beforeAll(async () => {
  provider = await startProvider({
    models: [
      {
        id: 'crawl',
        behaviour: { kind: 'fixed', text: 'slow words '.repeat(30) },
        latency: { firstTokenMs: 300, perTokenMs: 150 },
      },
    ],
  });
});
test.afterAll(async () => {
  await provider?.close();
});

function logErrors(page: Page, label: string): void {
  page.on('pageerror', (error) => console.log(`[${label} pageerror]`, error.message));
}

test('a run resumed in one tab shows as running in the other, which does not offer to resume it', async ({
  context,
}) => {
  test.setTimeout(120_000);
  const first = await context.newPage();
  const second = await context.newPage();
  logErrors(first, 'tab 1');
  logErrors(second, 'tab 2');
  const pool = [{ ...storedRun('x', 0).pool[0], baseURL: provider.baseURL, model: 'crawl' }];
  await seedVersion1(
    first,
    [storedRun('shared', 1000, { status: 'running', question: 'Resume me once', pool, answer: undefined })],
    [storedStep('shared', { state: 'queued', text: '' })],
  );

  await first.goto('/#/ask');
  await second.goto('/#/ask');
  // Both tabs see the unfinished run; the first resumes it.
  await expect(second.getByTestId('unfinished-banner').getByTestId('resume-run')).toHaveCount(1);
  await first.getByTestId('unfinished-banner').getByTestId('resume-run').click();
  await expect(first.getByTestId('run')).toHaveAttribute('data-phase', 'running');

  // The second tab, opened (or reloaded) while the first runs it, shows it as running there; its step,
  // streaming in the first tab and stored as in flight, is not called paid for and lost.
  await expect(first.getByTestId('step-card-0')).toContainText('slow words slow words');
  await second.reload();
  const banner = second.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Resume me once');
  await expect(banner.getByTestId('running-elsewhere')).toHaveText('running in another tab');
  await expect(banner.getByTestId('lost-answer')).toHaveCount(0);
  await expect(banner).not.toContainText('paid for');
  await expect(banner.getByTestId('resume-run')).toHaveCount(0);
  await expect(banner.getByTestId('discard-run')).toHaveCount(0);

  // Seen while it streamed: the rest of the answer need not be waited out.
  provider.hurry();
  // When the first tab's run ends, the second tab's banner is read again: nothing is left to resume.
  await expect(first.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(second.getByTestId('unfinished-banner')).toHaveCount(0);
  expect(chatRequestsFor(provider, 'crawl')).toBe(1);
});

test('a tab that still shows a stale Resume button does not run the run another tab is running', async ({
  context,
}) => {
  test.setTimeout(120_000);
  const first = await context.newPage();
  const second = await context.newPage();
  const before = chatRequestsFor(provider, 'crawl');
  const pool = [{ ...storedRun('x', 0).pool[0], baseURL: provider.baseURL, model: 'crawl' }];
  await seedVersion1(
    first,
    [storedRun('stale', 1000, { status: 'running', question: 'Only once', pool, answer: undefined })],
    [storedStep('stale', { state: 'queued', text: '' })],
  );
  await first.goto('/#/ask');
  await second.goto('/#/ask');
  const stale = second.getByTestId('unfinished-banner').getByTestId('resume-run');
  await expect(stale).toHaveCount(1);
  await first.getByTestId('unfinished-banner').getByTestId('resume-run').click();
  await expect(first.getByTestId('run')).toHaveAttribute('data-phase', 'running');
  // The second tab's banner was drawn before the first tab took the run; its click is refused.
  await stale.click();
  await expect(second.getByTestId('resume-problem')).toContainText('running in another tab');
  // Once its answer is coming in, the rest of it need not be waited out.
  await expect(first.getByTestId('step-card-0')).toContainText('slow words');
  provider.hurry();
  await expect(first.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  // Once the first tab lets the run go, the second reads again: nothing left to resume, no stale warning.
  await expect(second.getByTestId('unfinished-banner')).toHaveCount(0);
  expect(chatRequestsFor(provider, 'crawl') - before).toBe(1);
});
