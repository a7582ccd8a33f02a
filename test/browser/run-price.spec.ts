import {
  focusWhenShown,
  logErrors,
  openStoredPlan,
  type StoredPlan,
  storePlan,
  useServers,
} from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// The price before the spend, through the whole app: a plan in review, the test provider over real HTTP,
// the review's price column, the spend limit in Settings, its confirm and the executor stopping a run that
// passes it.

const LONG = 'word '.repeat(3000);
const servers = useServers({
  cors: 'strict',
  models: [
    { id: 'echo', behaviour: { kind: 'echo' } },
    { id: 'long', behaviour: { kind: 'fixed', text: LONG }, latency: { firstTokenMs: 50, perTokenMs: 1 } },
  ],
});

/**
 * Two workers at $100 a million tokens, the spend limit set on Settings, and `steps` open in review (a plan
 * not run yet, opened from History: the price is the review's whoever wrote the plan).
 */
async function setUp(
  page: Page,
  secondModel: string,
  limit: string,
  plan: { question: string; steps: StoredPlan['steps'] },
): Promise<void> {
  const priced = (id: string, model: string, label: string) => ({
    ...modelWorker(id, servers.provider.baseURL, model, label),
    price: { inputPerM: 100, outputPerM: 100 },
  });
  const pool = [priced('w1', 'echo', 'Echo'), priced('w2', secondModel, 'Second')];
  await seedApp(page, { pool, plan: { maxDepth: 0, maxSteps: 2 } });
  await storePlan(page, { ...plan, pool });
  await page.goto('/#/settings');
  await page.getByLabel('Spend limit per run ($)').fill(limit);
  await expect(page.getByTestId('spending-panel').getByRole('alert')).toHaveCount(0);
  await openStoredPlan(page, plan.question);
}

function chats(): number {
  return servers.provider.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
    .length;
}

test('review shows each step’s estimated price and the total; a plan over the limit waits for the OK', async ({
  page,
}, testInfo) => {
  test.setTimeout(300_000);
  logErrors(page);
  await setUp(page, 'echo', '0.01', {
    question: 'Say hello, then check it.',
    steps: [
      { worker: 'w1', task: 'Say hello.', sees: [] },
      { worker: 'w2', task: 'Check the greeting.', sees: [0] },
    ],
  });

  const editor = page.getByTestId('plan-editor');
  // Each step: tokens in and out and its cost; step 1 reads step 0's answer, so it takes more in.
  for (const index of [0, 1]) {
    await expect(editor.getByTestId(`edit-step-${index}-price`)).toHaveText(
      /^Estimated: ≈ \d+ in · 400 out · \$0\.0\d+$/,
    );
  }
  const tokensIn = async (index: number) =>
    Number((await editor.getByTestId(`edit-step-${index}-price`).textContent())?.match(/≈ (\d+) in/)?.[1]);
  expect(await tokensIn(1)).toBeGreaterThan((await tokensIn(0)) + 400);
  const total = editor.getByTestId('plan-estimate');
  await expect(total).toContainText(/Estimated price: ≈ \$0\.\d+ for 2 steps \(\d+ tokens in, 800 out\)/);
  await expect(total).toContainText('≈ 400 tokens per answer where a worker has no history yet');
  await expect(editor.getByTestId('plan-over-limit')).toContainText('over your $0.01 spend limit per run');

  // Run: the confirm opens with focus on the answer that spends nothing; Escape declines.
  const sentBefore = chats();
  await editor.getByTestId('run-plan').click();
  const confirm = page.getByRole('alertdialog', { name: 'Over your spend limit' });
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText('over your $0.01 limit per run');
  await expect(confirm).toContainText('Nothing has been sent.');
  await expect(confirm.getByTestId('spend-confirm-decline')).toBeFocused();
  await saveScreenshot(page, testInfo, 'spend-confirm.png');
  await page.keyboard.press('Escape');
  await expect(confirm).toBeHidden();
  // Declining loses nothing: the plan is still in review, as edited, and nothing left.
  await expect(editor.getByTestId('run-plan')).toBeFocused();
  await expect(editor.getByTestId('edit-step-1').getByLabel('Task')).toHaveValue('Check the greeting.');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'review');
  expect(chats()).toBe(sentBefore);

  // Agreed from the keyboard, it runs with a raised limit for this run. The confirm has focus from the
  // moment it is shown: a key pressed as it appears acts on it, not on the plan behind it.
  const focusedOnShow = await focusWhenShown(page, 'spend-confirm');
  await page.keyboard.press('Enter');
  await expect(confirm).toBeVisible();
  expect(await focusedOnShow()).toBe('spend-confirm-decline');
  await page.keyboard.press('Shift+Tab');
  await expect(confirm.getByTestId('spend-confirm-run')).toBeFocused();
  await expect(confirm.getByTestId('spend-confirm-run')).toHaveText(
    /^Run it, with a \$0\.\d\d limit for this run$/,
  );
  await page.keyboard.press('Enter');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  expect(chats()).toBe(sentBefore + 2);
  // The estimate and the actual cost side by side.
  const totals = page.getByTestId('run-totals');
  await expect(totals.getByTestId('run-estimate')).toHaveText(/^Estimated≈ \$0\.\d+$/);
  await expect(totals.getByTestId('run-cost')).toHaveText(/^Cost\$0\.\d+$/);
  await saveScreenshot(page, testInfo, 'estimate-beside-cost.png');
});

test('a run whose spend passes the limit stops with a message naming both, its done steps kept', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  // The plan is estimated at about $0.12 (400-token answers), under $0.15; step 1 writes 3,000 words.
  await setUp(page, 'long', '0.15', {
    question: 'Say hello, then go on at length.',
    steps: [
      { worker: 'w1', task: 'Say hello.', sees: [] },
      { worker: 'w2', task: 'Go on at length.', sees: [0] },
    ],
  });
  await expect(page.getByTestId('plan-over-limit')).toHaveCount(0);
  await page.getByTestId('run-plan').click();

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'failed', { timeout: 120_000 });
  await expect(run.getByRole('alert')).toContainText(
    /Stopped at your \$0\.15 spend limit per run: \$0\.1\d+ spent\. Steps done are kept/,
  );
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('step-card-0')).toContainText('Say hello.');
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'cancelled');
  await expect(page.getByTestId('step-card-1')).toContainText('stopped at its spend limit');
  // The stored run keeps step 0's answer: History opens it so.
  const id = await run.getAttribute('data-run-id');
  await page.goto(`/#/run/${id}`);
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'failed');
});
