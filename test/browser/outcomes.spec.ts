import { askQuestion, loadTinyConductor, logErrors, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Outcomes and workflow memory through the whole app: the tiny generated conductor in its worker, the test
// provider over real HTTP, the marks kept in IndexedDB, and the next similar question planned with the
// marked run's workflow as an example, which the plan view links to.

const servers = useServers({ cors: 'strict', models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });

test('a run marked good is drawn on for a similar question, and the plan view opens it', async ({ page }) => {
  test.setTimeout(300_000);
  logErrors(page);
  await seedApp(page, {
    pool: [modelWorker('w1', servers.provider.baseURL, 'echo', 'Echo')],
    plan: { maxDepth: 0, maxSteps: 1 },
  });
  await loadTinyConductor(page, servers.models.url);

  const pastQuestion = 'Translate the quokka greeting into French';
  await askQuestion(page, pastQuestion);
  const run = page.getByTestId('run');
  await expect(page.getByTestId('final-answer')).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('drew-on')).toHaveCount(0);
  const pastId = await run.getAttribute('data-run-id');

  // The buttons say which mark is set; `b` and `g` inside the run view mark it too, the last mark winning.
  const good = page.getByTestId('mark-good');
  const bad = page.getByTestId('mark-bad');
  await expect(good).toHaveAttribute('aria-pressed', 'false');
  await bad.click();
  await expect(bad).toHaveAttribute('aria-pressed', 'true');
  await run.focus();
  await page.keyboard.press('g');
  await expect(good).toHaveAttribute('aria-pressed', 'true');
  await expect(bad).toHaveAttribute('aria-pressed', 'false');

  await askQuestion(page, 'Translate the quokka greeting into German');
  const drewOn = page.getByTestId('drew-on');
  await expect(drewOn).toContainText('Drew on 1 past run:', { timeout: 120_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible({ timeout: 120_000 });
  // The mark belongs to its run: the new one starts unmarked.
  await expect(good).toHaveAttribute('aria-pressed', 'false');

  await drewOn.getByRole('link', { name: pastQuestion }).click();
  await expect(page).toHaveURL(new RegExp(`#/run/${pastId}$`));
  await expect(page.getByTestId('run')).toHaveAttribute('data-run-id', pastId!);
  await expect(page.getByTestId('mark-good')).toHaveAttribute('aria-pressed', 'true');
});
