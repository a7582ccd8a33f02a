import { resolve } from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { expect, test } from './app-test.ts';

// `npm start` sends the build's policy (build/csp-plugin.ts, devDirectives): a host the build refuses is
// refused in development too, and the dev server's own needs (its injected styles, its HMR websocket)
// raise no violation. This spec starts that dev server itself, on a free port.

const ROOT = resolve(import.meta.dirname, '../..');
let server: ViteDevServer | undefined;

test.afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('the dev server sends the policy: the app runs under it, and a host outside it is refused', async ({
  page,
}) => {
  test.setTimeout(180_000);
  server = await createServer({
    root: ROOT,
    configFile: resolve(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  await server.listen();
  const base = server.resolvedUrls!.local[0]!;
  const logs: string[] = [];
  page.on('console', (message) => logs.push(message.text()));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as { __violations?: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });

  const response = await page.goto(`${base}#/settings`, { timeout: 120_000 });
  const header = response!.headers()['content-security-policy'] ?? '';
  expect(header).toContain("script-src 'self' 'wasm-unsafe-eval';");
  expect(header).toContain("frame-ancestors 'none'");
  await expect(page.getByTestId('vault-panel')).toBeVisible({ timeout: 120_000 });
  // The dev client's injected styles apply, and its websocket connects.
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(
    'rgba(0, 0, 0, 0)',
  );
  await expect.poll(() => logs.some((text) => text.includes('[vite] connected.'))).toBe(true);

  // A custom host the build would refuse is refused here too, before anything leaves.
  const refused = await page.evaluate(async () => {
    try {
      await fetch('https://llm.example.com/v1/models');
      return '';
    } catch (error) {
      return String(error);
    }
  });
  expect(refused).toMatch(/TypeError/);
  const violations = await page.evaluate(
    () => (globalThis as { __violations?: string[] }).__violations ?? [],
  );
  expect(violations.some((v) => v.startsWith('connect-src https://llm.example.com'))).toBe(true);
  // Nothing else was refused, but zod's probe for `new Function` (it falls back, in a build as here). Which
  // file holds zod depends on how Vite groups the dependencies (a chunk of its own, or shared with another
  // package that imports zod), so the probe is known by its line in the file the dev server sent.
  const isZodProbe = async (violation: string) => {
    const where = /^script-src eval (\S+):(\d+)$/.exec(violation);
    if (!where) return false;
    const lines = (await (await fetch(where[1]!)).text()).split('\n');
    return lines[Number(where[2]) - 1]?.includes('new Function("")') === true;
  };
  const others: string[] = [];
  for (const v of violations)
    if (!v.startsWith('connect-src https://llm.example.com') && !(await isZodProbe(v))) others.push(v);
  expect(others).toEqual([]);
});
