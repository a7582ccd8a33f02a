import { expect, test } from '@playwright/test';
import { addWorker, askQuestion, editPlan, limitPlans, loadTinyConductor, useServers } from './app-steps.ts';

// Review mode against real parts (the tiny GGUF conductor in its worker, the test provider over HTTP):
// the review must accept the plan language the conductor itself writes, `self` steps included.

const servers = useServers({ cors: 'strict', models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });

test("review accepts the conductor's own self-check step and runs it (issue 10, bug 2)", async ({ page }) => {
  test.setTimeout(240_000);
  await loadTinyConductor(page, servers.models.url);
  await limitPlans(page, { selfCheckDepth: '1', maxSteps: '2' });
  await addWorker(page, {
    baseURL: servers.provider.baseURL,
    model: 'echo',
    label: 'Echo one',
    strengths: 'echoes',
  });

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
