import { expect, type Page, test } from '@playwright/test';

type RunResult = { passed: boolean; message: string };

async function run(page: Page, code: string, tests: string, timeoutMs = 3000): Promise<RunResult> {
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

test.beforeEach(async ({ page }) => {
  await page.goto('/test/pages/evaluation.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
});

test('code answers pass or fail by their tests, in the sandbox', async ({ page }) => {
  const good = await run(page, 'function add(a, b) { return a + b; }', "assert(add(2, 3) === 5, 'add');");
  expect(good).toEqual({ passed: true, message: 'all tests passed' });
  const bad = await run(
    page,
    'function add(a, b) { return a - b; }',
    "assert(add(2, 3) === 5, 'add is wrong');",
  );
  expect(bad).toEqual({ passed: false, message: 'add is wrong' });
  const broken = await run(page, 'function add(a, b) { return a +; }', 'assert(true);');
  expect(broken.passed).toBe(false);
  expect(broken.message).toMatch(/Unexpected token/);
});

test('an endless loop is stopped by the time limit and the runner keeps working', async ({ page }) => {
  const started = Date.now();
  const loop = await run(page, 'while (true) {}', '', 500);
  expect(loop).toEqual({ passed: false, message: 'timed out after 500 ms' });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect((await run(page, 'const x = 1;', 'assert(x === 1);')).passed).toBe(true);
});

test('untrusted code reaches neither the network nor the app storage', async ({ page }) => {
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const network = await run(
    page,
    "let blocked = false; try { await fetch('/exfiltrate?k=1'); } catch { blocked = true; }",
    "assert(blocked, 'fetch was allowed');",
  );
  expect(network).toEqual({ passed: true, message: 'all tests passed' });
  expect(requests.filter((url) => url.includes('exfiltrate'))).toEqual([]);

  const storage = await run(
    page,
    `let denied = false;
     try {
       await new Promise((resolve, reject) => {
         const request = indexedDB.open('baton-vault');
         request.onsuccess = resolve;
         request.onerror = () => reject(request.error);
       });
     } catch { denied = true; }`,
    "assert(denied, 'IndexedDB was reachable');",
  );
  expect(storage).toEqual({ passed: true, message: 'all tests passed' });
});
