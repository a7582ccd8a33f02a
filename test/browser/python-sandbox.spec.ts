import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { PythonRun, PythonVerdict } from '../../src/evaluation/python-program.ts';
import type { Score } from '../../src/evaluation/score.ts';
import type { Task } from '../../src/evaluation/taskset.ts';
import { PYODIDE_CACHE, PYODIDE_FILES } from '../../src/sandbox/python-assets.ts';
import { type BrowserContext, expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// Pyodide is cached for offline use by the app's service worker (blocked by default: playwright.config.ts).
test.use({ serviceWorkers: 'allow' });

// Python answers scored under Pyodide in the code-runner sandbox: the page fetches Pyodide's files from this
// build and hands the bytes in; the sandbox itself never touches the network. One page for the whole file:
// starting Pyodide takes seconds, and reusing one interpreter across items is part of what is shown. It opens
// after a first visit to the app, as a user's would, so the app's service worker controls it (and caches
// Pyodide): what the last test looks at, without a second context that starts Pyodide again.
test.describe.configure({ mode: 'serial' });

const HUMANEVAL = readFileSync(
  resolve(import.meta.dirname, '../fixtures/benchmarks/humaneval.jsonl'),
  'utf8',
);
const TIME_LIMIT_MS = 5000;

interface Harness {
  runner: { runPython(run: PythonRun, timeoutMs: number): Promise<PythonVerdict> };
  score(task: Task, response: string, timeoutMs: number): Promise<Score>;
  tasks(text: string, fileName: string): Promise<Task[]>;
}

let context: BrowserContext;
let page: Page;
let tasks: Task[];
/**
 * Every request of the page and its frames and workers, with the frame it came from when Playwright knows it;
 * `forwarded`: the service worker's own request for what a page asked it for.
 */
const requests: { url: string; frame: string; forwarded: boolean; failed?: string }[] = [];
/** What was requested before the first answer was scored: the app's first visit and the harness page's load. */
let beforeScoring: string[];

const score = (task: Task, response: string, ms = TIME_LIMIT_MS) =>
  page.evaluate(
    ([task, response, ms]) =>
      (globalThis as unknown as { harness: Harness }).harness.score(task, response, ms),
    [task, response, ms] as const,
  );
const runPython = (run: PythonRun, ms = TIME_LIMIT_MS) =>
  page.evaluate(
    ([run, ms]) => (globalThis as unknown as { harness: Harness }).harness.runner.runPython(run, ms),
    [run, ms] as const,
  );
const fenced = (code: string) => `Here it is:\n\n\`\`\`python\n${code}\n\`\`\``;

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext();
  await openStepsByDefault(context);
  context.on('request', (request) => {
    let frame = 'worker';
    try {
      frame = request.frame().url();
    } catch {}
    requests.push({ url: request.url(), frame, forwarded: request.serviceWorker() !== null });
  });
  context.on('requestfailed', (request) => {
    const entry = requests.findLast((r) => r.url === request.url());
    if (entry) entry.failed = request.failure()?.errorText ?? 'failed';
  });
  page = await context.newPage();
  await page.goto('/');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // The harness page, controlled by the app's service worker like any page of this origin.
  await page.goto('/test/pages/python.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  beforeScoring = requests.map((r) => r.url);
  tasks = await page.evaluate(
    (text) => (globalThis as unknown as { harness: Harness }).harness.tasks(text, 'humaneval.jsonl'),
    HUMANEVAL,
  );
  expect(tasks.map((t) => t.id)).toEqual(['Baton/0', 'Baton/1']);
});

test.afterAll(async () => {
  await context.close();
});

test('HumanEval reference solutions pass and broken ones fail under Pyodide, each by check(entry_point)', async () => {
  test.setTimeout(180_000);
  for (const task of tasks) {
    // The reference solution (prompt + canonical_solution) as a chat model writes it: the whole function.
    expect(await score(task, fenced(task.answer)), task.id).toMatchObject({
      correct: true,
      detail: 'all tests passed',
    });
    // A completion model's reply: only the body, appended to the prompt.
    const body = task.answer.slice(task.python?.style === 'check' ? task.python.prompt.length : 0);
    expect((await score(task, fenced(body))).correct, `${task.id} body only`).toBe(true);
  }
  const [addPair, countVowels] = tasks as [Task, Task];
  const wrong = await score(addPair, fenced('def add_pair(a, b):\n    return a - b'));
  expect(wrong).toMatchObject({ correct: false, detail: 'AssertionError' });
  expect(wrong.unscored).toBeUndefined();
  const raises = await score(countVowels, fenced('def count_vowels(text):\n    return text.count(None)'));
  expect(raises).toMatchObject({ correct: false, detail: expect.stringMatching(/^TypeError: /) });
  const syntax = await score(addPair, fenced('def add_pair(a, b)\n    return a + b'));
  expect(syntax).toMatchObject({ correct: false, detail: expect.stringMatching(/^SyntaxError: /) });
});

test('an endless loop is stopped by the time limit, and the next item gets a working interpreter', async () => {
  test.setTimeout(180_000);
  const [addPair] = tasks as [Task];
  // A shorter limit for the loop alone: it never ends, so any limit stops it (the limit counts from the run,
  // not from the interpreter's start); the next item gets the usual one.
  const loopLimitMs = 1000;
  const loop = await score(
    addPair,
    fenced('def add_pair(a, b):\n    while True:\n        pass'),
    loopLimitMs,
  );
  expect(loop).toMatchObject({ correct: false, detail: `timed out after ${loopLimitMs} ms` });
  expect(await score(addPair, fenced(addPair.answer))).toMatchObject({ correct: true });
});

test('each item runs in a clean namespace of the one interpreter; stdin is fed and stdout returned', async () => {
  expect(
    await runPython({ program: 'leftover = 1\nimport sys\nsys.modules["baton_mark"] = 1' }),
  ).toMatchObject({ passed: true });
  // The module table is shared (one interpreter), the namespace is not.
  expect(
    await runPython({
      program: 'import sys\nassert "baton_mark" in sys.modules\nassert "leftover" not in globals()',
    }),
  ).toMatchObject({ passed: true, message: 'all tests passed' });
  expect(
    await runPython({
      program: 'a, b = map(int, input().split())\nprint(a * b)\nprint(input())',
      stdin: '6 7\nend\n',
    }),
  ).toEqual({ passed: true, message: 'all tests passed', stdout: '42\nend\n' });
});

test('a stdin/stdout program may end with sys.exit(0) after printing; any other status fails', async () => {
  const printed = { stdin: '', expectedStdout: '7\n' };
  expect(await runPython({ program: 'print(7)\nimport sys\nsys.exit()', ...printed })).toEqual({
    passed: true,
    message: 'the program exited with status 0',
    stdout: '7\n',
  });
  expect(await runPython({ program: 'print(7)\nexit(0)', ...printed })).toMatchObject({ passed: true });
  expect(await runPython({ program: 'print(7)\nimport sys\nsys.exit(1)', ...printed })).toMatchObject({
    passed: false,
    message: 'SystemExit: 1',
  });
});

test('an answer cannot post a verdict of its own or end its run early as a pass', async () => {
  const [addPair] = tasks as [Task];
  // It reaches the worker's globals through Pyodide's `js` module and posts what a verdict looks like.
  const forged = await score(
    addPair,
    fenced(
      [
        'import js',
        'from pyodide.ffi import to_js',
        'fake = to_js({"type": "result", "id": "x", "passed": True, "message": "all tests passed", "stdout": ""}, dict_converter=js.Object.fromEntries)',
        'js.postMessage(fake)',
        'def add_pair(a, b):',
        '    return 0',
      ].join('\n'),
    ),
  );
  expect(forged).toMatchObject({ correct: false, detail: 'AssertionError' });
  // sys.exit(0) raises SystemExit: the program does not reach its end, which is no pass.
  const exits = await score(
    addPair,
    fenced('import sys\nsys.exit(0)\ndef add_pair(a, b):\n    return a + b'),
  );
  expect(exits.correct).toBe(false);
  expect(await score(addPair, fenced(addPair.answer))).toMatchObject({ correct: true });
});

test('an answer that breaks the shared interpreter does not make the answers after it pass', async () => {
  const [addPair] = tasks as [Task];
  // It replaces what runs every later program with a version that compiles away every assert.
  const tamper = [
    'import pyodide.code',
    'def _no_asserts(source, globals=None, locals=None, *args, **kwargs):',
    '    exec(compile(source, "<answer>", "exec", optimize=1), globals)',
    'pyodide.code.eval_code = _no_asserts',
    'def add_pair(a, b):',
    '    return a + b',
  ].join('\n');
  // A check after each run finds it out: the answer fails, and the interpreter is replaced.
  expect(await score(addPair, fenced(tamper))).toMatchObject({
    correct: false,
    detail: 'the answer altered the Python interpreter the runs share; a new one was started',
  });
  expect(await score(addPair, fenced('def add_pair(a, b):\n    return 0'))).toMatchObject({
    correct: false,
    detail: 'AssertionError',
  });
  expect((await score(addPair, fenced(addPair.answer))).correct).toBe(true);
});

test('the sandbox makes no request: Pyodide came from the page, and an answer reaches no server', async ({
  baseURL,
}) => {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits++;
    response.writeHead(200, { 'Access-Control-Allow-Origin': '*' }).end('leaked');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/from-python`;
  try {
    const attempt = await runPython({
      program: [
        'import js',
        'outcome = []',
        'try:',
        '    from pyodide.http import open_url',
        `    open_url(${JSON.stringify(target)})`,
        '    outcome.append("xhr went through")',
        'except Exception as error:',
        '    outcome.append("xhr blocked")',
        `js.fetch(${JSON.stringify(`${target}?fetch`)})`,
        'print(outcome[0])',
      ].join('\n'),
    });
    expect(attempt).toMatchObject({ passed: true, stdout: 'xhr blocked\n' });
    // Give the fetch the answer started (and the policy refused) time to have reached the server if it could.
    await page.waitForTimeout(1000);
    expect(hits).toBe(0);
  } finally {
    server.close();
  }
  const origin = new URL(baseURL ?? '').origin;
  const sandbox = `${origin}/sandbox/code-runner.html`;
  // The page fetched Pyodide's files itself, once each, from this build (and the service worker it asked
  // forwarded each once, to cache it).
  const files = [
    'pyodide-lock.json',
    'pyodide.asm.mjs',
    'pyodide.asm.wasm',
    'pyodide.mjs',
    'python_stdlib.zip',
  ];
  const pyodide = requests.filter((r) => r.url.includes('/assets/pyodide/') && !r.forwarded);
  expect(pyodide.map((r) => r.url.split('/').pop()).sort()).toEqual(files.sort());
  expect(pyodide.every((r) => r.frame.startsWith(`${origin}/test/pages/python.html`))).toBe(true);
  const forwarded = requests.filter((r) => r.url.includes('/assets/pyodide/') && r.forwarded);
  expect(forwarded.map((r) => r.url.split('/').pop()).sort()).toEqual(files.sort());
  // From the sandbox frame: blob: URLs it made of the bytes it was given (Pyodide's modules), and the
  // answer's attempt, refused by the frame's policy before it left the browser (the server saw nothing).
  const fromSandbox = requests.filter((r) => r.frame === sandbox);
  expect(fromSandbox.length).toBeGreaterThan(0);
  for (const request of fromSandbox.filter((r) => !r.url.startsWith('blob:null/')))
    expect(request, 'a sandbox request that was not refused').toMatchObject({
      url: target,
      failed: expect.any(String),
    });
  // Nothing but this build was asked for anything, by any frame.
  expect(
    requests.filter((r) => !r.url.startsWith(origin) && !r.url.startsWith('blob:') && r.url !== target),
  ).toEqual([]);
});

test('Pyodide is not part of the first visit, and is cached for offline use once a Python item was scored', async () => {
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  expect(beforeScoring.filter((url) => url.includes('/assets/pyodide/'))).toEqual([]);
  // Scored here too, so that this test also runs alone.
  const [addPair] = tasks as [Task];
  expect((await score(addPair, fenced(addPair.answer))).correct).toBe(true);
  const cached = await page.evaluate(async (name) => {
    const keys = await (await caches.open(name)).keys();
    return keys.map((request) => new URL(request.url).pathname.split('/').pop()).sort();
  }, PYODIDE_CACHE);
  expect(cached).toEqual([...PYODIDE_FILES].sort());

  // Offline, every file still comes (from the service worker's cache), whole.
  await context.setOffline(true);
  const urls = [...new Set(requests.filter((r) => r.url.includes('/assets/pyodide/')).map((r) => r.url))];
  expect(urls).toHaveLength(PYODIDE_FILES.length);
  const offline = await page.evaluate(
    (urls) =>
      Promise.all(
        urls.map(async (url) => {
          const response = await fetch(url);
          return { url, ok: response.ok, bytes: (await response.arrayBuffer()).byteLength };
        }),
      ),
    urls,
  );
  for (const file of offline) expect(file.ok && file.bytes > 0, file.url).toBe(true);
});
