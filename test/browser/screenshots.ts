import type { Locator, Page, TestInfo } from '@playwright/test';

/**
 * Saves what `target` shows (a page: all of it) in the test's output folder, for a person to look at, when
 * BATON_SCREENSHOTS is set (`BATON_SCREENSHOTS=1 npx playwright test`). Without a GPU each screenshot is
 * rasterised on the CPU and costs more than most checks, so the suite takes none by default; a failing
 * test keeps its last screen anyway (`screenshot: 'only-on-failure'` in playwright.config.ts).
 */
export async function saveScreenshot(
  target: Page | Locator,
  testInfo: TestInfo,
  name: string,
): Promise<void> {
  if (!process.env.BATON_SCREENSHOTS) return;
  const path = testInfo.outputPath(name);
  if ('goto' in target) await target.screenshot({ path, fullPage: true });
  else await target.screenshot({ path });
}
