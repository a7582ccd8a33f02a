import { expect, test } from './app-test.ts';

// The plan review's graph names workers as the user named them in the pool, as the run view's does.

test("the plan review's graph names workers by their labels, never by ids", async ({ page }) => {
  await page.goto('/test/pages/plan-review.html');
  const editor = page.getByTestId('plan-editor');
  await expect(editor.getByTestId('graph-node-0')).toContainText('0. Drafting model');
  await expect(editor.getByTestId('graph-node-1')).toContainText('1. Checking model');
  const graph = editor.getByRole('img', { name: /^Workflow of 3 steps/ });
  await expect(graph).toHaveAccessibleName(/Step 1 \(Checking model\) sees step 0\./);
  const described = (await graph.getAttribute('aria-label')) ?? '';
  expect(described).not.toMatch(/\bw[13]\b/);
  // Not in the nodes' tooltips either.
  const tooltips = await editor.locator('[data-testid^="graph-node-"] title').allTextContents();
  expect(tooltips).toHaveLength(3);
  for (const tooltip of tooltips) expect(tooltip).not.toMatch(/\bw[13]\b/);
});
