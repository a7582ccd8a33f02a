import { expect, type Page } from '@playwright/test';

// The evaluation sandbox's harness page (test/pages/evaluation.ts), as its specs drive it.

export type RunResult = { passed: boolean; message: string };

/** A test that a right `add` passes and a wrong one fails. */
export const FAILING_TEST = "assert(add(2, 3) === 5, 'add(2, 3) should be 5');";

/** Opens the harness on the page (`query`: its options, e.g. `?sandbox=<origin>`) and waits until its runner is ready. */
export async function openEvaluationHarness(page: Page, query = ''): Promise<void> {
  await page.goto(`/test/pages/evaluation.html${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

/** Runs `code`, then `tests`, in the page's sandbox runner: its verdict. */
export async function run(page: Page, code: string, tests: string, timeoutMs = 3000): Promise<RunResult> {
  return page.evaluate(
    ([code, tests, timeoutMs]) =>
      (
        globalThis as unknown as {
          harness: { runner: { run(c: string, t: string, ms: number): Promise<RunResult> } };
        }
      ).harness.runner.run(code, tests, timeoutMs),
    [code, tests, timeoutMs] as const,
  );
}
