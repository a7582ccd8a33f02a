import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CDPSession, expect, type Page, test } from './app-test.ts';
import { FAILING_TEST, openEvaluationHarness, type RunResult, run } from './evaluation-harness.ts';
import { smallHeapTest } from './small-heap.ts';
import { openStepsByDefault } from './steps-open.ts';

/**
 * The same call over a CDP session of the page's own target. Playwright marks a page as crashed when any
 * of its out-of-process frames crashes (the sandbox's, here) and then refuses page.evaluate, although
 * the page itself lives on; a session of its own still reaches it.
 */
async function runOver(
  session: CDPSession,
  code: string,
  tests: string,
  timeoutMs: number,
): Promise<RunResult> {
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    expression: `harness.runner.run(${JSON.stringify(code)}, ${JSON.stringify(tests)}, ${timeoutMs})`,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`the page threw: ${exceptionDetails.text}`);
  return result.value as RunResult;
}

/** The harness with its sandbox on another site (localhost beside 127.0.0.1), as a deployment serves it. */
async function openCrossSite(page: Page, baseURL: string): Promise<void> {
  const sandbox = `http://localhost:${new URL(baseURL).port}`;
  await openEvaluationHarness(page, `?sandbox=${encodeURIComponent(sandbox)}`);
}

// One harness page for the tests in the suite's browser: each checks the verdicts of its answers and the runner
// those leave for the next answer, not a first load, and a page per test was mostly the time to open one
// (evaluation-attacks.spec.ts does the same). The test that closes the runner opens the harness again.
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
  await openEvaluationHarness(page);
});
test.afterAll(() => page?.close());

test('code answers pass or fail by their tests, in the sandbox', async () => {
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

test('answers keep what they may do: top-level await, const, sloppy globals, async tests', async () => {
  const cases: [string, string][] = [
    ['const x = await Promise.resolve(1);', 'assert(x === 1);'],
    ['for (i = 0; i < 3; i++) {}', 'assert(i === 3);'],
    [
      'const later = (v) => new Promise((r) => setTimeout(() => r(v), 10));',
      'assert((await later(7)) === 7);',
    ],
    [
      'function shout(s) { return String(s).toUpperCase(); }',
      "assert(shout('a') === 'A'); assert(String(shout).includes('toUpperCase'));",
    ],
  ];
  for (const [code, tests] of cases) {
    expect(await run(page, code, tests), code).toEqual({ passed: true, message: 'all tests passed' });
  }
  expect(await run(page, '', "assert(false, 'no message is lost')")).toEqual({
    passed: false,
    message: 'no message is lost',
  });
});

test('an answer cannot start workers of its own (each would get a heap of its own)', async () => {
  const verdict = await run(
    page,
    `let started = 'no';
     try { new Worker(URL.createObjectURL(new Blob(['postMessage(1)']))); started = 'yes'; } catch {}`,
    "assert(started === 'no', 'a nested worker started');",
  );
  expect(verdict).toEqual({ passed: true, message: 'all tests passed' });
});

test('closing the runner ends the run in flight with an error that says so: no verdict on the answer', async () => {
  const outcome = await page.evaluate(async () => {
    const { runner } = (
      globalThis as unknown as {
        harness: { runner: { run(c: string, t: string, ms: number): Promise<RunResult>; dispose(): void } };
      }
    ).harness;
    await runner.run('', '', 1000);
    const running = runner.run('while (true) {}', '', 60_000);
    await new Promise((r) => setTimeout(r, 200));
    runner.dispose();
    return running.then(
      (verdict) => ({ verdict }),
      (error: Error) => ({ error: `${error.name}: ${error.message}` }),
    );
  });
  expect(outcome).toEqual({
    error: 'RunnerUnavailableError: the code runner was closed before this answer finished',
  });
  // A closed runner takes no more answers: the tests after this one get a harness with a new one.
  await openEvaluationHarness(page);
});

test('an endless loop is stopped by the time limit and the runner keeps working', async () => {
  const started = Date.now();
  const loop = await run(page, 'while (true) {}', '', 500);
  expect(loop).toEqual({ passed: false, message: 'timed out after 500 ms' });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect((await run(page, 'const x = 1;', 'assert(x === 1);')).passed).toBe(true);
});

test('untrusted code reaches neither the network nor the app storage', async () => {
  const requests: string[] = [];
  const onRequest = (request: { url(): string }) => requests.push(request.url());
  page.on('request', onRequest);
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
  page.off('request', onRequest);
});

test.describe('no network from the sandbox', () => {
  let server: Server;
  let seen: string[];
  let base: string;
  test.beforeAll(async () => {
    seen = [];
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      res.setHeader('Content-Type', 'text/javascript');
      res.end('self.leaked = true;');
    });
    server.on('upgrade', (req, socket) => {
      seen.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    server.on('connection', () => seen.push('connection'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('sandboxed code cannot fetch, import, open sockets or load anything, from any origin', async ({
    baseURL,
  }) => {
    // Whatever gets past the policy to the network is caught here (for the app's own origin too) and answered
    // with a script that would run, so an attempt that gets out also counts as 'allowed'.
    const escaped: string[] = [];
    await page.context().route('**/exfiltrate/**', (route) => {
      escaped.push(route.request().url());
      return route.fulfill({
        body: 'self.leaked = true;',
        contentType: 'text/javascript',
        headers: { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' },
      });
    });
    for (const target of [`http://${base}`, baseURL!]) {
      const url = (what: string) => JSON.stringify(`${target}/exfiltrate/${what}`);
      const attempts = {
        fetch: `await fetch(${url('fetch')})`,
        importScripts: `importScripts(${url('importScripts')})`,
        xhr: `await new Promise((ok, no) => { const x = new XMLHttpRequest(); x.open('GET', ${url('xhr')}); x.onload = ok; x.onerror = no; x.send(); })`,
        websocket: `await new Promise((ok, no) => { const ws = new WebSocket(${url('ws')}.replace('http', 'ws')); ws.onopen = ok; ws.onerror = no; })`,
        eventsource: `await new Promise((ok, no) => { const es = new EventSource(${url('sse')}); es.onopen = ok; es.onerror = no; })`,
        image: `await new Promise((ok, no) => { const img = new Image(); img.onload = ok; img.onerror = no; img.src = ${url('image')}; })`,
        import: `await import(${url('import')})`,
        worker: `await new Promise((ok, no) => { const w = new Worker(${url('worker')}); w.onerror = no; setTimeout(ok, 300); })`,
        beacon: `if (!navigator.sendBeacon(${url('beacon')}, 'k')) throw new Error('refused')`,
      };
      const code = `const outcomes = {};
        for (const [name, attempt] of Object.entries({ ${Object.entries(attempts)
          .map(([name, body]) => `${name}: async () => { ${body}; }`)
          .join(', ')} })) {
          try { await attempt(); outcomes[name] = 'allowed'; } catch { outcomes[name] = 'blocked'; }
        }`;
      const verdict = await run(
        page,
        code,
        "assert(Object.values(outcomes).every((o) => o === 'blocked'), JSON.stringify(outcomes));",
        10_000,
      );
      expect(verdict, target).toEqual({ passed: true, message: 'all tests passed' });
    }
    expect(seen).toEqual([]);
    expect(escaped).toEqual([]);
    await page.context().unroute('**/exfiltrate/**');
  });
});

smallHeapTest(
  'a memory bomb fails its run, and the page and a fresh runner live on',
  async ({ page, baseURL }) => {
    // Reaching V8's heap limit takes several seconds and crashes the process that hosts the runner.
    test.setTimeout(180_000);
    await openCrossSite(page, baseURL!);
    const session = await page.context().newCDPSession(page);
    const bomb = 'const a = []; for (;;) a.push(new Array(1e7).fill(0.5));';
    // A time limit far beyond the memory limit, so the crash, not the clock, ends this run.
    const verdict = await runOver(session, bomb, '', 120_000);
    expect(verdict.passed).toBe(false);
    expect(verdict.message).toMatch(/stopped responding .*out of memory/);
    const next = await runOver(session, 'function add(a, b) { return a + b; }', FAILING_TEST, 5000);
    expect(next).toEqual({ passed: true, message: 'all tests passed' });
    const { result } = await session.send('Runtime.evaluate', { expression: 'document.body.dataset.ready' });
    expect(result.value).toBe('true');
  },
);
