import AxeBuilder from '@axe-core/playwright';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import {
  addModelWorker,
  answerAtOnce,
  askQuestion,
  crawlModel,
  editPlan,
  limitPlans,
  loadTinyConductor,
  logErrors,
  openPlanInReview,
  useServers,
} from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// The whole app against real parts: the tiny generated GGUF in the real CPU engine inside the conductor
// worker (the conductor), the local OpenAI-compatible test provider over real HTTP with strict CORS (the
// workers), real IndexedDB. The tiny model's plans are nonsense but valid, so the tests that plan check
// shape and flow; the tests of what follows a review open a plan of the shape they need in review instead.

const servers = useServers({
  cors: 'strict',
  models: [
    { id: 'paced', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 400, perTokenMs: 30 } },
    crawlModel(40),
    // For the cancel test: both steps must still be streaming after a cancel and its checks, however
    // slow the machine (40 repeats end in about 12 s, which a loaded machine spent before the checks).
    { ...crawlModel(400), id: 'crawl-long' },
  ],
});

test.describe.configure({ mode: 'serial' });

/** Plans of up to three steps without self-checks, and two workers: the first test sets these up on Settings. */
async function setUpPool(page: Page): Promise<void> {
  await limitPlans(page, { selfCheckDepth: '0', maxSteps: '3' });
  // The code sandbox is offered by default, and the tiny model's random plans may end on it with no code
  // in what it sees: such a run fails, saying so (a last `run` step with nothing to run is no answer).
  // Its own specs test it; the flow here is about the cloud workers.
  await page.getByTestId('include-run').uncheck();
  await addModelWorker(page, servers.provider.baseURL, 'paced', 'Paced echo');
  await addModelWorker(page, servers.provider.baseURL, 'upper', 'Upper');
}

/** The pool `setUpPool` makes, with `extra` workers after the two. */
function poolWith(extra: WorkerSpec[] = []): WorkerSpec[] {
  return [
    modelWorker('w1', servers.provider.baseURL, 'paced', 'Paced echo'),
    modelWorker('w2', servers.provider.baseURL, 'upper', 'Upper'),
    ...extra,
  ];
}

/** The same as `setUpPool`, seeded before the app starts, with `extra` workers after the two. */
async function seedPool(page: Page, extra: WorkerSpec[] = []): Promise<void> {
  await seedApp(page, { pool: poolWith(extra), plan: { maxDepth: 0, maxSteps: 3 } });
}

/** Seeds the pool and opens `steps` in review, as a plan not run yet (no model to load, no plan to wait for). */
async function reviewSteps(
  page: Page,
  question: string,
  steps: Array<{ worker: string; task: string; sees: number[] }>,
  extra: WorkerSpec[] = [],
): Promise<void> {
  await seedPool(page, extra);
  await openPlanInReview(page, { question, pool: poolWith(extra), steps });
}

test('full flow: first run, pool of two providers, ask, streamed plan, steps run, answer, history after reload', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  await loadTinyConductor(page, servers.models.url);
  await setUpPool(page);

  await askQuestion(page, 'Say hello and then say it louder.');
  const run = page.getByTestId('run');
  await expect(run).toBeVisible();
  // The plan streams in: the conductor's raw output grows while planning.
  await expect(page.getByTestId('plan-stream')).not.toHaveText('…', { timeout: 30_000 });
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible();
  await expect(page.locator('[data-testid^="graph-node-"]').first()).toBeVisible();
  await expect(page.locator('[data-testid^="timeline-bar-"]').first()).toBeVisible();
  const runId = await run.getAttribute('data-run-id');
  // Every step went to the test provider over real HTTP.
  expect(
    servers.provider.requests.some((r) => r.path === '/v1/chat/completions' && r.method === 'POST'),
  ).toBe(true);

  await page.reload();
  await page.goto('/#/history');
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await page.getByTestId('history-item').getByRole('link').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-run-id', runId!);
  await expect(page.getByTestId('final-answer')).toBeVisible();

  // Every step's request is in the egress ledger the user can read.
  await page.goto('/#/ledger');
  const ledger = page.getByTestId('ledger-panel');
  await expect(ledger.locator('tbody tr').first()).toContainText(new URL(servers.provider.url).host);
  await expect(ledger.locator('tbody tr', { hasText: runId!.slice(0, 6) }).first()).toBeVisible();
});

async function timelineBar(page: Page, i: number) {
  const el = page.getByTestId(`timeline-bar-${i}`);
  return {
    start: Number(await el.getAttribute('data-start')),
    end: Number(await el.getAttribute('data-end')),
  };
}

test('review and edit a plan (validated as you type), two steps run in parallel, then rerun a step and its dependents', async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000);
  logErrors(page);
  await reviewSteps(page, 'Give two greetings and combine them.', [
    { worker: 'w2', task: 'Greet.', sees: [] },
  ]);
  await editPlan(page, [
    { worker: 'w1', task: 'Say hello in English.', sees: [] },
    { worker: 'w1', task: 'Say hello in French.', sees: [] },
    { worker: 'w2', task: 'Combine both greetings.', sees: [0, 1] },
  ]);
  // Validated as you type, with the plan module's own message; Run is disabled while invalid.
  const editor = page.getByTestId('plan-editor');
  await editor.getByTestId('edit-step-1').getByLabel('Task').fill('   ');
  await expect(editor.getByTestId('edit-step-1-issues')).toContainText('Step 1 has an empty task.');
  await expect(editor.getByTestId('run-plan')).toBeDisabled();
  await editor.getByTestId('edit-step-1').getByLabel('Task').fill('Say hello in French.');
  await expect(editor.getByTestId('edit-step-1-issues')).toHaveCount(0);
  // The review screen passes axe too (it needs a live plan, so it is checked here rather than in a11y.spec).
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
  ).toEqual([]);
  await saveScreenshot(page, testInfo, 'review-light.png');
  await editor.getByTestId('run-plan').click();

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  // The edited plan is what ran, and steps 0 and 1 overlapped in time.
  await expect(page.getByTestId('step-card-2')).toContainText('Combine both greetings.');
  const [b0, b1, b2] = [await timelineBar(page, 0), await timelineBar(page, 1), await timelineBar(page, 2)];
  expect(b1.start).toBeLessThan(b0.end);
  expect(b0.start).toBeLessThan(b1.end);
  expect(b2.start).toBeGreaterThanOrEqual(Math.max(b0.end, b1.end));
  await expect(page.getByRole('img', { name: /can run in parallel/ })).toBeVisible();
  await saveScreenshot(page, testInfo, 'watch-light.png');

  // Rerun step 1: it and step 2 (which sees it) run again; step 0 keeps its answer and timing.
  const chatCalls = () =>
    servers.provider.requests.filter((r) => r.path === '/v1/chat/completions' && r.method === 'POST').length;
  const before = chatCalls();
  await page.getByRole('button', { name: 'Rerun step 1' }).click();
  await expect(run).toHaveAttribute('data-phase', 'running');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  expect(chatCalls() - before).toBe(2);
  const [r0, r1] = [await timelineBar(page, 0), await timelineBar(page, 1)];
  expect(r0.end - r0.start).toBe(b0.end - b0.start);
  expect(r1.start).toBeGreaterThan(r0.end);
});

test('cancel a step, then the run', async ({ page }) => {
  test.setTimeout(240_000);
  logErrors(page);
  await reviewSteps(
    page,
    'Write two long answers.',
    [
      { worker: 'w3', task: 'Write a long answer.', sees: [] },
      { worker: 'w3', task: 'Write another long answer.', sees: [] },
    ],
    [modelWorker('w3', servers.provider.baseURL, 'crawl-long', 'Crawl')],
  );
  await page.getByTestId('run-plan').click();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'running');
  await page.getByRole('button', { name: 'Cancel step 1' }).click();
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'cancelled');
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'running');
  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled', { timeout: 15_000 });
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'cancelled');
});

test('a run interrupted by a reload is offered for resume, and resuming keeps the finished step', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  await reviewSteps(
    page,
    'Answer, then elaborate slowly.',
    [
      { worker: 'w1', task: 'Answer briefly.', sees: [] },
      { worker: 'w3', task: 'Elaborate at length.', sees: [0] },
    ],
    [modelWorker('w3', servers.provider.baseURL, 'crawl', 'Crawl')],
  );
  await page.getByTestId('run-plan').click();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('step-card-1')).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
  const firstAnswer = await page.getByTestId('step-card-0').locator('.answer').textContent();

  await page.reload();
  await page.goto('/#/ask');
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner).toContainText('Answer, then elaborate slowly.');
  const undo = answerAtOnce(servers.provider, crawlModel(40));
  await banner.getByTestId('resume-run').click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('step-card-0').locator('.answer')).toHaveText(firstAnswer ?? '');
  await expect(page.getByTestId('final-answer')).toContainText('slow words');
  await expect(banner).toHaveCount(0);
  undo();
});

test('export a finished run as JSON and Markdown, and import the JSON back', async ({ page }) => {
  test.setTimeout(240_000);
  logErrors(page);
  // Who wrote the plan is not the subject: a one-step plan opened in review, then run.
  await reviewSteps(page, 'Say something to export.', [
    { worker: 'w2', task: 'Say something to export.', sees: [] },
  ]);
  await page.getByTestId('run-plan').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  const answer = await page.getByTestId('final-answer').locator('.answer').textContent();

  const mdDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export Markdown' }).click();
  const md = Buffer.concat(await (await (await mdDownload).createReadStream()).toArray()).toString('utf8');
  expect(md).toContain('# Say something to export.');
  expect(md).toContain('## Answer');

  const jsonDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const json = Buffer.concat(await (await (await jsonDownload).createReadStream()).toArray());

  await page.goto('/#/history');
  await page
    .getByTestId('import-file')
    .setInputFiles({ name: 'run.json', mimeType: 'application/json', buffer: json });
  // The file is this run's own export: it is recognised by its id and not stored a second time.
  await expect(page.getByText('This run is already in your history; it was not added again.')).toBeVisible();
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await page.getByTestId('history-item').first().getByRole('link').click();
  await expect(page.getByTestId('final-answer').locator('.answer')).toHaveText(answer ?? '');
});
