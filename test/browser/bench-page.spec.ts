import { readFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { type ScriptedModel, startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';

// Four tasks; `arith` is right on the three sums and wrong on the fact, `facts` is right on the fact and
// on one sum. By hand: single arith 3/4, single facts 2/4, and MoA (proposers arith + facts, aggregator
// facts, one layer) answers as its aggregator does: 2/4.
const QUESTIONS = {
  a1: ['What is 2+3?', '5'],
  a2: ['What is 6*7?', '42'],
  a3: ['What is 9-4?', '5'],
  f1: ['Capital of Italy?', 'Rome'],
} as const;
const TASK_LINES = [
  JSON.stringify({ id: 'a1', kind: 'numeric', question: QUESTIONS.a1[0], answer: QUESTIONS.a1[1] }),
  JSON.stringify({ id: 'a2', kind: 'numeric', question: QUESTIONS.a2[0], answer: QUESTIONS.a2[1] }),
  JSON.stringify({ id: 'a3', kind: 'numeric', question: QUESTIONS.a3[0], answer: QUESTIONS.a3[1] }),
  JSON.stringify({ id: 'f1', kind: 'exact', question: QUESTIONS.f1[0], answer: QUESTIONS.f1[1] }),
];
// Line 2 is not JSON and line 4 is a choice task without choices: both are reported, the rest is kept.
const PASTE = [
  TASK_LINES[0],
  '{"id": "broken", "question": ',
  TASK_LINES[1],
  JSON.stringify({ id: 'c1', kind: 'choice', question: 'Pick one', answer: 'A' }),
  TASK_LINES[2],
  '',
  TASK_LINES[3],
].join('\n');

// A code task: arith writes a working function, facts a broken one; scored by running the tests in the sandbox.
const CODE_QUESTION = 'Write add(a, b) in JavaScript.';
const CODE_TASK = JSON.stringify({
  id: 'c1',
  kind: 'code',
  question: CODE_QUESTION,
  answer: '',
  tests: "assert(add(2, 3) === 5, 'add(2, 3)'); assert(add(-1, 1) === 0, 'add(-1, 1)');",
});
const code = (body: string) => `Here it is:\n\n\`\`\`js\nfunction add(a, b) { ${body} }\n\`\`\``;

const table = (a1: string, a2: string, a3: string, f1: string, c1: string): ScriptedModel['behaviour'] => ({
  kind: 'table',
  answers: {
    [CODE_QUESTION]: code(c1),
    [QUESTIONS.a1[0]]: `Answer: ${a1}`,
    [QUESTIONS.a2[0]]: `Answer: ${a2}`,
    [QUESTIONS.a3[0]]: `Answer: ${a3}`,
    [QUESTIONS.f1[0]]: `Answer: ${f1}`,
  },
});
// A little latency so there is time to pause mid-bench.
const latency = { firstTokenMs: 150, perTokenMs: 5 };

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      { id: 'arith', behaviour: table('5', '42', '5', 'Paris', 'return a + b;'), latency },
      { id: 'facts', behaviour: table('5', '40', '3', 'Rome', 'return a - b;'), latency },
    ],
  });
});
test.afterAll(() => provider.close());
test.beforeEach(() => provider.clearRequests());
// A bench of 12 items with latency, a build-loaded machine and a reload: generous, never a speed check.
test.describe.configure({ timeout: 180_000 });

const chats = () =>
  provider.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').length;
// Per task: single arith 1, single facts 1, MoA 2 proposers + aggregator 3.
const EXPECTED_CHATS = 4 * (1 + 1 + 3);

async function open(page: Page, theme: 'light' | 'dark' = 'light', planner = false): Promise<void> {
  const query = new URLSearchParams({ base: provider.baseURL, models: 'arith,facts', theme });
  if (planner) query.set('planner', '1');
  await page.goto(`/test/pages/bench.html?${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

/** Pastes the task set (with its two bad lines), adds the three strategies, sets concurrency 1. */
async function setUp(page: Page): Promise<void> {
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(PASTE);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-summary')).toContainText('4 tasks (3 numeric, 1 exact)');

  const kind = page.getByLabel('Kind');
  await kind.selectOption('single');
  await page.getByLabel('Worker', { exact: true }).selectOption('arith');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await page.getByLabel('Worker', { exact: true }).selectOption('facts');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await kind.selectOption('moa');
  await expect(page.getByRole('checkbox', { name: 'arith' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'facts' })).toBeChecked();
  await page.getByLabel('Aggregator').selectOption('facts');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await expect(page.getByTestId('chosen-strategies').locator('li')).toHaveText([
    /Single \(arith\)/,
    /Single \(facts\)/,
    /MoA 2×1/,
  ]);
  await page.getByLabel('Concurrency').fill('1');
}

const progressbar = (page: Page) => page.getByRole('progressbar', { name: 'Bench progress' });
const finished = async (page: Page) => Number(await progressbar(page).getAttribute('aria-valuenow'));

async function expectHandComputedResults(page: Page): Promise<void> {
  const results = page.getByTestId('bench-results');
  const cell = (strategy: string, col: string) =>
    results.locator(`tr[data-strategy="${strategy}"] td[data-col="${col}"]`);
  await expect(cell('single:arith', 'accuracy')).toHaveText('75% (3/4)');
  await expect(cell('single:facts', 'accuracy')).toHaveText('50% (2/4)');
  await expect(cell('moa:arith+facts>facts:1', 'accuracy')).toHaveText('50% (2/4)');
  for (const s of ['single:arith', 'single:facts', 'moa:arith+facts>facts:1'])
    await expect(cell(s, 'failures')).toHaveText('0');
  // The charts: one point per strategy, one bar per strategy, segments per worker (MoA uses both).
  await expect(results.getByTestId('chart-point')).toHaveCount(3);
  const bars = results.getByTestId('bar');
  await expect(bars).toHaveCount(3);
  const workersOf = (strategy: string) =>
    results
      .locator(`[data-testid="bar"][data-strategy="${strategy}"] [data-testid="bar-segment"]`)
      .evaluateAll((rects) => rects.map((r) => r.getAttribute('data-worker')));
  expect(await workersOf('single:arith')).toEqual(['arith']);
  expect(await workersOf('single:facts')).toEqual(['facts']);
  expect(await workersOf('moa:arith+facts>facts:1')).toEqual(['arith', 'facts']);
  await expect(results.getByTestId('tokens-legend').locator('li')).toHaveText(['arith', 'facts']);
  // Points sit where the table says: 75% above 50%.
  const cy = (strategy: string) =>
    results.locator(`[data-testid="chart-point"][data-strategy="${strategy}"] circle`).getAttribute('cy');
  expect(Number(await cy('single:arith'))).toBeLessThan(Number(await cy('single:facts')));
  await expect(results.getByTestId('accuracy-cost-chart')).toHaveAttribute(
    'aria-label',
    /Single \(arith\): 75%/,
  );
  const width = await results
    .getByTestId('accuracy-cost-chart')
    .evaluate((svg) => svg.getBoundingClientRect().width);
  expect(width).toBeGreaterThan(100);
}

test('a bad JSONL paste lists its line numbers and keeps the good lines', async ({ page }) => {
  await open(page);
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(PASTE);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  const errors = page.getByTestId('taskset-errors').locator('li');
  await expect(errors).toHaveCount(2);
  await expect(errors.nth(0)).toHaveText(/^Line 2: not valid JSON/);
  await expect(errors.nth(1)).toHaveText(/^Line 4: .*choice.*needs choices/);
  await expect(page.getByTestId('taskset-summary')).toContainText('4 tasks');
  // Without the conductor, router and conductor cannot be chosen, and the page says why.
  await expect(page.locator('#bench-kind option[value="router"]')).toBeDisabled();
  await expect(page.locator('#bench-kind option[value="conductor"]')).toBeDisabled();
  await expect(page.getByTestId('planner-hint')).toContainText('on-device conductor');
});

test('a small bench end to end: pause and resume from the keyboard, hand-computed accuracy, charts, export', async ({
  page,
}, testInfo) => {
  await open(page);
  await setUp(page);
  await page.getByRole('button', { name: /Run bench \(12 items\)/ }).click();
  await expect(progressbar(page)).toHaveAttribute('aria-valuemax', '12');
  await expect.poll(() => finished(page)).toBeGreaterThanOrEqual(2);

  const pause = page.getByRole('button', { name: 'Pause' });
  await pause.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('bench-state')).toHaveText('Paused');
  const atPause = await finished(page);
  expect(atPause).toBeLessThan(12);
  const chatsAtPause = chats();
  // Paused means paused: nothing new is sent and the count stays.
  await page.waitForTimeout(800);
  expect(chats()).toBe(chatsAtPause);
  expect(await finished(page)).toBe(atPause);

  const resume = page.getByRole('button', { name: 'Resume' });
  await resume.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  await expect(progressbar(page)).toHaveAttribute('aria-valuenow', '12');
  expect(chats()).toBe(EXPECTED_CHATS);
  await expectHandComputedResults(page);

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export trajectories (JSONL)' }).click();
  const file = await downloading;
  expect(file.suggestedFilename()).toMatch(/^baton-trajectories-.*\.jsonl$/);
  const text = await readFile((await file.path())!, 'utf8');
  const lines = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines).toHaveLength(12);
  const arithRewards = lines
    .filter((t) => t.mode === 'single' && t.steps[0].worker === 'arith')
    .map((t) => [t.question, t.reward]);
  expect(Object.fromEntries(arithRewards)).toEqual({
    [QUESTIONS.a1[0]]: 1,
    [QUESTIONS.a2[0]]: 1,
    [QUESTIONS.a3[0]]: 1,
    [QUESTIONS.f1[0]]: 0.5,
  });
  expect(lines.filter((t) => t.mode === 'moa').every((t) => t.steps.length === 3)).toBe(true);
  expect(text).not.toContain('baseURL');
  expect(text).not.toContain('127.0.0.1');

  await saveScreenshot(page, testInfo, 'bench-light.png');
  // Dark theme: the stored bench, shown again after a reload.
  await open(page, 'dark');
  await page.getByRole('button', { name: /^Show / }).click();
  await expectHandComputedResults(page);
  await saveScreenshot(page, testInfo, 'bench-dark.png');
});

test('a paused bench survives a reload: resumed from the store, no item runs twice', async ({ page }) => {
  await open(page);
  await setUp(page);
  await page.getByLabel('Name').fill('Reload me');
  await page.getByRole('button', { name: /Run bench/ }).click();
  await expect.poll(() => finished(page)).toBeGreaterThanOrEqual(3);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Paused');
  const before = await finished(page);
  expect(before).toBeLessThan(12);

  await open(page);
  const row = page.getByTestId('bench-runs').locator('tr', { hasText: 'Reload me' });
  await expect(row).toHaveAttribute('data-state', 'paused');
  await row.getByRole('button', { name: 'Resume Reload me' }).click();
  // The stored results count from the start.
  await expect.poll(() => finished(page)).toBeGreaterThanOrEqual(before);
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  await expect(progressbar(page)).toHaveAttribute('aria-valuenow', '12');
  expect(chats()).toBe(EXPECTED_CHATS);
  await expectHandComputedResults(page);
  await expect(row).toHaveAttribute('data-state', 'done');
});

test('with a conductor: the router runs, two benches side by side, and no serious axe violations', async ({
  page,
}) => {
  await open(page, 'light', true);
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(TASK_LINES.join('\n'));
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-errors')).toHaveCount(0);
  await expect(page.getByTestId('planner-hint')).toHaveCount(0);
  await page.getByLabel('Kind').selectOption('router');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await page.getByLabel('Kind').selectOption('single');
  await page.getByLabel('Worker', { exact: true }).selectOption('facts');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  // The same strategy twice is refused.
  await page.getByRole('button', { name: 'Add strategy' }).click();
  await expect(page.getByTestId('strategy-problem')).toHaveText('This strategy is already in the list.');
  await page.getByLabel('Name').fill('First');
  await page.getByLabel('Concurrency').fill('4');
  await page.getByRole('button', { name: 'Run bench (8 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  const first = page.getByTestId('bench-results');
  // The router sends digits to arith (3/3 sums) and the fact to facts (1/1): 4/4.
  await expect(first.locator('tr[data-strategy="router"] td[data-col="accuracy"]')).toHaveText('100% (4/4)');
  await expect(first.locator('tr[data-strategy="single:facts"] td[data-col="accuracy"]')).toHaveText(
    '50% (2/4)',
  );
  expect(chats()).toBe(8);

  // A second bench with a single strategy, then compared with the first.
  await page.getByRole('button', { name: 'Remove Router' }).click();
  await page.getByLabel('Name').fill('Second');
  await page.getByRole('button', { name: 'Run bench (4 items)' }).click();
  await expect(page.getByTestId('bench-results')).toContainText('Second');
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  const firstOption = page.getByLabel('Compare with').locator('option', { hasText: 'First' });
  await page.getByLabel('Compare with').selectOption((await firstOption.getAttribute('value'))!);
  const compared = page.getByTestId('bench-compare');
  await expect(compared).toContainText('First');
  await expect(compared.locator('tr[data-strategy="router"] td[data-col="accuracy"]')).toHaveText(
    '100% (4/4)',
  );
  // One strategy row (the results panel also holds the table of wrong items by cause).
  await expect(
    page.getByTestId('bench-results').getByTestId('results-table').locator('tbody tr'),
  ).toHaveCount(1);
  await expect(page.getByTestId('bench-runs').locator('tbody tr')).toHaveCount(2);

  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
});

test('code tasks are scored by running their tests in the sandbox', async ({ page }) => {
  await open(page);
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(CODE_TASK);
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-summary')).toContainText('1 task (1 code)');
  for (const worker of ['arith', 'facts']) {
    await page.getByLabel('Worker', { exact: true }).selectOption(worker);
    await page.getByRole('button', { name: 'Add strategy' }).click();
  }
  await page.getByRole('button', { name: 'Run bench (2 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 60_000 });
  const results = page.getByTestId('bench-results');
  await expect(results.locator('tr[data-strategy="single:arith"] td[data-col="accuracy"]')).toHaveText(
    '100% (1/1)',
  );
  await expect(results.locator('tr[data-strategy="single:facts"] td[data-col="accuracy"]')).toHaveText(
    '0% (0/1)',
  );
  await expect(page.locator('iframe[sandbox="allow-scripts"]')).toHaveCount(1);
});

test('the spend cap stops the bench before it would be passed', async ({ page }) => {
  await open(page);
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('Or paste JSONL').fill(TASK_LINES.join('\n'));
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await page.getByLabel('Kind').selectOption('moa');
  await page.getByRole('button', { name: 'Add strategy' }).click();
  // Before any result, an MoA item is estimated at 3 steps x 400 output tokens at the dearest price ($6/M):
  // about $0.0072, more than this cap, so nothing may start.
  await page.getByLabel('Spend cap ($)').fill('0.005');
  await page.getByRole('button', { name: 'Run bench (4 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Stopped at the spend cap');
  await expect(page.getByTestId('bench-progress')).toContainText(
    'Stopped before passing the $0.005 spend cap',
  );
  await expect(page.getByTestId('bench-count')).toHaveText('0/4 items');
  expect(chats()).toBe(0);
  await expect(page.getByTestId('bench-runs').locator('tbody tr')).toHaveAttribute('data-state', 'capped');
});
