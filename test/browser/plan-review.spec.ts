import { askQuestion, editPlan, loadTinyConductor, openPlanInReview, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { customWorker, seedApp } from './seed-app.ts';

// Review mode against real parts (the tiny GGUF conductor in its worker, the test provider over HTTP):
// the review must accept the plan language the conductor itself writes, `self` steps included. A plan the
// review warns about is opened in review as a stored plan: no planning needed for its shape.

const servers = useServers({ cors: 'strict', models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });

const echoOne = () =>
  customWorker({
    id: 'w1',
    baseURL: servers.provider.baseURL,
    model: 'echo',
    label: 'Echo one',
    strengths: 'echoes',
  });

test("review accepts the conductor's own self-check step and runs it", async ({ page }) => {
  test.setTimeout(240_000);
  await seedApp(page, { pool: [echoOne()], plan: { maxDepth: 1, maxSteps: 2 } });
  await loadTinyConductor(page, servers.models.url);

  await askQuestion(page, 'Say hello.', { review: true });
  // Make the plan: one worker step, then the conductor's self-check of it.
  await editPlan(page, [
    { worker: 'w1', task: 'Say hello.', sees: [] },
    { worker: 'self', task: 'Check the greeting.', sees: [0] },
  ]);

  const editor = page.getByTestId('plan-editor');
  await expect(editor.getByTestId('edit-step-1-issues')).toHaveCount(0);
  await expect(editor.getByTestId('plan-issues')).toHaveCount(0);
  await expect(editor.getByTestId('run-plan')).toBeEnabled();
  await editor.getByTestId('run-plan').click();

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('step-card-1')).toContainText('Check the greeting.');
  await expect(page.getByTestId('final-answer')).toBeVisible();
});

test('review flags a step whose answer no later step reads, and applying the fix leaves it out', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await seedApp(page, { pool: [echoOne()], plan: { maxDepth: 0, maxSteps: 3 } });
  // Step 1 is read by nobody, and it is not the last step: paid for, then thrown away.
  await openPlanInReview(page, {
    question: 'Say hello.',
    pool: [echoOne()],
    steps: [
      { worker: 'w1', task: 'Say hello.', sees: [] },
      { worker: 'w1', task: 'Say goodbye.', sees: [] },
      { worker: 'w1', task: 'Repeat the greeting.', sees: [0] },
    ],
  });

  const editor = page.getByTestId('plan-editor');
  const warnings = editor.getByTestId('plan-warnings');
  await expect(warnings.getByRole('listitem')).toHaveCount(1);
  await expect(warnings.getByRole('listitem')).toHaveAttribute('data-rule', 'unread-step');
  await expect(warnings).toContainText(
    'No later step reads the answer of step 1 ("Echo one"), and it is not the last step',
  );
  await expect(warnings).toContainText('Fix: Step 1 is left out.');
  // A warning, not an error: the plan may still run as it is.
  await expect(editor.getByTestId('run-plan')).toBeEnabled();

  await editor.getByTestId('apply-plan-fixes').click();
  await expect(editor.getByTestId('plan-warnings')).toHaveCount(0);
  await expect(editor.locator('fieldset.edit-step')).toHaveCount(2);
  await expect(editor.getByTestId('edit-step-1').getByLabel('Task')).toHaveValue('Repeat the greeting.');
  await expect(editor.getByTestId('edit-step-1').getByLabel('step 0', { exact: true })).toBeChecked();

  await editor.getByTestId('run-plan').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('step-card-1')).toContainText('Repeat the greeting.');
  await expect(page.getByTestId('step-card-2')).toHaveCount(0);
});
