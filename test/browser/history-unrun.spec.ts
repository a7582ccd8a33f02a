import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, test } from './app-test.ts';
import { seedVersion1, storedRun } from './stored-runs.ts';

// Runs that never reached the executor stay in History after a reload: a plan not run yet (review, Plan
// only) and a question the conductor could not plan. Seeded straight into IndexedDB, as the page stores them.

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({ models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });
});
test.afterAll(async () => {
  await provider?.close();
});

const NO_SPEND = { promptTokens: 0, completionTokens: 0, cost: 0, done: 0, failed: 0, cancelled: 0 };

function seeded() {
  const worker = (id: string, label: string) => ({
    id,
    label,
    strengths: 'echoes',
    providerId: 'custom',
    baseURL: provider.baseURL,
    model: 'echo',
    maxConcurrency: 1,
    enabled: true,
  });
  const planned = storedRun('planned-1', 1000, {
    status: 'planned',
    question: 'Plan me a greeting',
    pool: [worker('w1', 'Echo one'), worker('w2', 'Echo two')],
    plan: {
      thought: 'say it, then repeat it',
      steps: [
        { worker: 'w1', task: 'Say hello.', sees: [] },
        { worker: 'w2', task: 'Repeat it.', sees: [0] },
      ],
    },
    totals: { ...NO_SPEND, steps: 2 },
    answer: undefined,
  });
  const failed = storedRun('failed-1', 2000, {
    status: 'planning-failed',
    question: 'Fail me',
    plan: { steps: [] },
    totals: { ...NO_SPEND, steps: 0 },
    answer: undefined,
    error: 'Planning failed. The on-device model could not read your question.',
    errorDetails: [
      'EngineFailure: llama.cpp failed: Failed to format input: unordered_map::at: key not found',
    ],
  });
  return [planned, failed];
}

test('a failed planning stays in History in words, and Try again asks it again with the question kept', async ({
  page,
}) => {
  await seedVersion1(page, seeded(), []);
  await page.goto('/#/history');
  const rows = page.getByTestId('history-item');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'Fail me' }).getByTestId('history-status')).toHaveText(
    'planning failed',
  );
  await expect(rows.filter({ hasText: 'Plan me' }).getByTestId('history-status')).toHaveText(
    'plan not run yet',
  );

  await page.getByRole('link', { name: 'Fail me' }).click();
  const error = page.getByTestId('run-error');
  await expect(error.locator('p').first()).toHaveText(
    'Planning failed. The on-device model could not read your question.',
  );
  // The engine's words are there, behind Details.
  await expect(error.getByText(/unordered_map/)).toBeHidden();
  await error.getByText('Details').click();
  await expect(error.getByText(/unordered_map/)).toBeVisible();

  // No planner is loaded in this page: trying again fails again, in words, and the question is back in the box.
  await error.getByTestId('retry-planning').click();
  await expect(page.getByTestId('run-error').locator('p').first()).toHaveText(
    'Planning failed. No planner model is loaded: load one on Start first.',
  );
  await expect(page.locator('#question')).toHaveValue('Fail me');
  await page.goto('/#/history');
  await expect(page.getByTestId('history-item')).toHaveCount(3);
});

test('a plan not run yet opens in review, naming workers by their labels, and runs from there', async ({
  page,
}) => {
  await seedVersion1(page, seeded(), []);
  await page.goto('/#/history');
  await page.getByRole('link', { name: 'Plan me a greeting' }).click();
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible();
  await expect(editor.getByTestId('edit-step-1').getByLabel('Task')).toHaveValue('Repeat it.');
  // The user's names for the workers everywhere in the review: the graph, its description, the lists.
  await expect(editor.getByTestId('workflow-graph')).toContainText('Echo one');
  await expect(editor.getByTestId('edit-step-0').getByLabel('Worker')).toContainText('Echo one');
  for (const text of await editor.locator('fieldset.edit-step').allTextContents()) {
    expect(text).not.toMatch(/\bw[12]\b/);
  }
  // The graph's description says "Step 0 (Echo one)", not "Step 0 (w1)".
  const description = await editor.locator('svg[role="img"]').getAttribute('aria-label');
  expect(description).toContain('Step 0 (Echo one)');
  expect(description).not.toMatch(/\bw[12]\b/);

  await editor.getByTestId('run-plan').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible();
  await page.goto('/#/history');
  await expect(
    page.getByTestId('history-item').filter({ hasText: 'Plan me' }).getByTestId('history-status'),
  ).toHaveText('done');
});
