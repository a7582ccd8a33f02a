import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LedgerEntry } from '../../src/egress/ledger.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import type { EgressHarness } from '../pages/egress.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, type Request, test } from './app-test.ts';

// Three providers = three origins, each with its own key (the provider enforces it).
const KEY_A = 'sk-egress-A-1111111111111111';
const KEY_B = 'sk-egress-B-2222222222222222';
const KEY_C = 'sk-ant-egress-C-333333333333';
let a: TestProvider;
let b: TestProvider;
let c: TestProvider;

test.beforeAll(async () => {
  a = await startProvider({ apiKey: KEY_A, cors: 'strict' });
  b = await startProvider({ apiKey: KEY_B, cors: 'strict' });
  c = await startProvider({ apiKey: KEY_C, cors: 'anthropic' });
});
test.afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
});
test.beforeEach(() => {
  for (const p of [a, b, c]) p.clearRequests();
});

type Win = { __egress: EgressHarness };

async function open(page: Page) {
  await page.goto('/test/pages/egress.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.evaluate(() => (globalThis as unknown as Win).__egress.setup());
}

async function saveKey(page: Page, providerId: string, baseURL: string, key: string) {
  await page.evaluate(
    ([p, u, k]) => (globalThis as unknown as Win).__egress.saveKey(p!, u!, k!),
    [providerId, baseURL, key],
  );
}

function worker(id: string, providerId: string, baseURL: string, model: string): WorkerSpec {
  return { id, label: id, strengths: 'test', providerId, baseURL, model, maxConcurrency: 2, enabled: true };
}

const originOf = (url: string) => new URL(url).origin;
const signature = (method: string, url: string) => `${method} ${new URL(url).host}${new URL(url).pathname}`;

test('a full run: each key goes only to its own origin, and the ledger matches the network capture one for one', async ({
  page,
  baseURL,
}) => {
  const captured: Request[] = [];
  page.on('request', (request) => captured.push(request));
  await open(page);
  await saveKey(page, 'vllm', a.baseURL, KEY_A);
  await saveKey(page, 'llamacpp', b.baseURL, KEY_B);
  await saveKey(page, 'anthropic-test', c.baseURL, KEY_C);
  const pool = [
    worker('w1', 'vllm', a.baseURL, 'echo'),
    worker('w2', 'llamacpp', b.baseURL, 'upper'),
    worker('w3', 'anthropic-test', c.baseURL, 'reverse'),
  ];
  const plan = {
    thought: 'spread the work',
    steps: [
      { worker: 'w1', task: 'Draft an answer.', sees: [] },
      { worker: 'w2', task: 'Improve it.', sees: [0] },
      { worker: 'w3', task: 'Check it.', sees: [] },
      { worker: 'w1', task: 'Give the final answer.', sees: 'all' },
    ],
  };
  const run = await page.evaluate(
    ([p, pl]) =>
      (globalThis as unknown as Win).__egress.fullRun(p as WorkerSpec[], pl as never, 'run-capture'),
    [pool, plan] as const,
  );
  expect(run.errors).toEqual([null, null, null, null]);
  expect(run.status).toBe('done');
  expect(run.answers[1]).toBe(run.answers[1]!.toUpperCase());

  const appOrigin = originOf(baseURL!);
  const keyOf: Record<string, string> = { [a.url]: KEY_A, [b.url]: KEY_B, [c.url]: KEY_C };
  // Preflights are the browser's, not ours; the app's own assets carry no key (checked below).
  const outgoing = captured.filter((r) => r.method() !== 'OPTIONS' && originOf(r.url()) !== appOrigin);
  expect(outgoing.length).toBeGreaterThanOrEqual(4);
  for (const request of captured) {
    const origin = originOf(request.url());
    const everything = `${request.url()}\n${JSON.stringify(await request.allHeaders())}\n${request.postData() ?? ''}`;
    for (const [keyOrigin, key] of Object.entries(keyOf)) {
      if (origin === keyOrigin && request.method() !== 'OPTIONS')
        expect(everything, request.url()).toContain(key);
      else expect(everything, `${key} leaked to ${request.url()}`).not.toContain(key);
    }
    expect(request.url()).not.toMatch(/sk-/);
  }
  for (const request of outgoing) expect(Object.keys(keyOf)).toContain(originOf(request.url()));

  // Every captured request has exactly one ledger entry, and every sent entry one captured request.
  const sent = run.ledger.filter((e: LedgerEntry) => e.sent);
  expect(run.ledger.filter((e: LedgerEntry) => !e.sent)).toEqual([]);
  const fromNetwork = outgoing.map((r) => signature(r.method(), r.url())).sort();
  const fromLedger = sent.map((e: LedgerEntry) => `${e.method} ${e.host}${e.path}`).sort();
  expect(fromLedger).toEqual(fromNetwork);
  // And the servers agree: what each received (preflights aside) is what the ledger lists for its host.
  for (const p of [a, b, c]) {
    const received = p.requests.filter((r) => r.method !== 'OPTIONS').length;
    expect(sent.filter((e: LedgerEntry) => e.host === new URL(p.url).host).length).toBe(received);
  }
  for (const entry of sent) {
    expect(entry).toMatchObject({ runId: 'run-capture', state: 'done', status: 200, keyAttached: true });
    expect(entry.bytesOut).toBeGreaterThan(0);
    expect(entry.bytesIn).toBeGreaterThan(0);
    expect(entry.promptTokens).toBeGreaterThan(0);
    expect(entry.completionTokens).toBeGreaterThan(0);
  }
  expect(sent.map((e: LedgerEntry) => e.stepIndex).sort()).toEqual([0, 1, 2, 3]);
  // Fetched in egress's worker, not on the page: the page's own resource timing lists none of them.
  const onPage = await page.evaluate(() =>
    performance.getEntriesByType('resource').filter((e) => e.name.includes('/chat/completions')),
  );
  expect(onPage).toEqual([]);

  const exports = await page.evaluate(async () => {
    const h = (globalThis as unknown as Win).__egress;
    return `${await h.exportJSON()}\n${await h.exportCSV()}`;
  });
  for (const key of [KEY_A, KEY_B, KEY_C]) expect(exports).not.toContain(key);
});

test.describe('custom endpoints, keys by origin', () => {
  // Three custom hosts on 127.0.0.1: two that need their own key, one that needs none. The first answers
  // with both keys in its text, as a provider echoing a key (or a pasted one) would.
  const KEY_X = 'sk-custom-X-4444444444444444';
  const KEY_Y = 'sk-custom-Y-5555555555555555';
  let x: TestProvider;
  let y: TestProvider;
  let none: TestProvider;
  test.beforeAll(async () => {
    x = await startProvider({
      apiKey: KEY_X,
      models: [{ id: 'leaky', behaviour: { kind: 'fixed', text: `Keys: ${KEY_X} and ${KEY_Y}.` } }],
    });
    y = await startProvider({ apiKey: KEY_Y });
    none = await startProvider({});
  });
  test.afterAll(async () => {
    await Promise.all([x.close(), y.close(), none.close()]);
  });

  test('two keyed hosts and a keyless one in one run: each key reaches only its own host, a quoted key is removed', async ({
    page,
  }) => {
    const captured: Request[] = [];
    page.on('request', (request) => captured.push(request));
    await open(page);
    await saveKey(page, 'custom', x.baseURL, KEY_X);
    await saveKey(page, 'custom', y.baseURL, KEY_Y);
    const pool = [
      worker('w1', 'custom', x.baseURL, 'leaky'),
      worker('w2', 'custom', y.baseURL, 'echo'),
      worker('w3', 'custom', none.baseURL, 'upper'),
    ];
    const plan = {
      thought: 'three custom hosts',
      steps: [
        { worker: 'w1', task: 'List the keys.', sees: [] },
        // A key can also reach a later step through its task (a question or a plan quoting it).
        { worker: 'w2', task: `Repeat the list, and check ${KEY_X}.`, sees: [0] },
        { worker: 'w3', task: 'Shout everything.', sees: 'all' },
      ],
    };
    const run = await page.evaluate(
      ([p, pl]) =>
        (globalThis as unknown as Win).__egress.fullRun(p as WorkerSpec[], pl as never, 'run-custom'),
      [pool, plan] as const,
    );
    expect(run.errors).toEqual([null, null, null]);
    expect(run.status).toBe('done');

    const keyOf: Record<string, string> = { [x.url]: KEY_X, [y.url]: KEY_Y };
    const outgoing = captured.filter((r) => r.method() === 'POST');
    expect(outgoing.map((r) => originOf(r.url())).sort()).toEqual([x.url, y.url, none.url].sort());
    for (const request of outgoing) {
      const origin = originOf(request.url());
      const headers = await request.allHeaders();
      expect(headers.authorization, request.url()).toBe(
        keyOf[origin] ? `Bearer ${keyOf[origin]}` : undefined,
      );
      const everything = `${request.url()}\n${JSON.stringify(headers)}\n${request.postData() ?? ''}`;
      for (const [keyOrigin, key] of Object.entries(keyOf)) {
        if (keyOrigin !== origin) expect(everything, `${key} leaked to ${request.url()}`).not.toContain(key);
      }
    }
    expect(outgoing.find((r) => originOf(r.url()) === none.url)!.postData()).toContain('[redacted key]');
    // Both keys were taken out of the first answer as it arrived (so no answer holds one), and the key in
    // step 1's task out of the bodies going to the other two hosts.
    expect(run.answers.join('\n')).not.toMatch(/sk-custom/);
    expect(run.answers[0]).toContain('Keys: [redacted key] and [redacted key].');
    const chats = run.ledger.filter((e: LedgerEntry) => e.purpose === 'chat');
    expect(
      chats.map((e: LedgerEntry) => [
        e.stepIndex,
        e.keyAttached,
        e.keysRemoved ?? 0,
        e.answerKeysRemoved ?? 0,
      ]),
    ).toEqual([
      [0, true, 0, 2],
      [1, true, 1, 0],
      [2, false, 1, 0],
    ]);

    // Test connection: the keyless host works, and a keyed host with no key saved says exactly that.
    const check = (url: string) =>
      page.evaluate((u) => (globalThis as unknown as Win).__egress.connection('custom', u), url);
    expect(await check(none.baseURL)).toMatchObject({ ok: true });
    expect(await check(x.baseURL)).toMatchObject({ ok: true });
    const unkeyed = await startProvider({ apiKey: 'sk-never-saved-666666666666' });
    try {
      const result = await check(unkeyed.baseURL);
      expect(result).toMatchObject({ ok: false, problem: 'no-key', status: 401 });
      expect(result.ok === false && result.message).toContain(
        `no key is saved for ${new URL(unkeyed.url).host}`,
      );
    } finally {
      await unkeyed.close();
    }
  });
});

test('strict CORS: the SDK as shipped fails the preflight; the same SDK through egress passes', async ({
  page,
}) => {
  await open(page);
  const asShipped = await page.evaluate(
    ([u, k]) => (globalThis as unknown as Win).__egress.sdkDefault(u!, k!),
    [a.baseURL, KEY_A],
  );
  expect(asShipped.ok).toBe(false);
  expect(asShipped.connectionError).toBe(true);
  // The browser asked to send the SDK's telemetry headers; the strict provider said no, so nothing was sent.
  const preflight = a.requests.find((r) => r.method === 'OPTIONS');
  expect(preflight?.headers['access-control-request-headers']).toMatch(/x-stainless-/);
  expect(a.requests.filter((r) => r.method === 'POST')).toEqual([]);

  a.clearRequests();
  await saveKey(page, 'vllm', a.baseURL, KEY_A);
  const through = await page.evaluate(
    ([w]) => (globalThis as unknown as Win).__egress.viaEgress(w as WorkerSpec),
    [worker('w1', 'vllm', a.baseURL, 'echo')],
  );
  expect(through).toEqual({ ok: true, text: 'hello egress' });
  const post = a.requests.find((r) => r.method === 'POST')!;
  expect(Object.keys(post.headers).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
  expect(post.headers.authorization).toBe(`Bearer ${KEY_A}`);

  // The same egress with a preset that keeps the SDK's headers fails: it is the headers that matter.
  a.clearRequests();
  await saveKey(page, 'keep-sdk-headers', a.baseURL, KEY_A);
  const keeping = await page.evaluate(
    ([w]) => (globalThis as unknown as Win).__egress.viaEgress(w as WorkerSpec),
    [worker('w1', 'keep-sdk-headers', a.baseURL, 'echo')],
  );
  expect(keeping.ok).toBe(false);
  expect(keeping.error?.kind).toBe('connection');
  expect(a.requests.filter((r) => r.method === 'POST')).toEqual([]);
});

test('Anthropic mode: our preset (x-api-key and the opt-in header) passes; a plain bearer request is refused', async ({
  page,
}) => {
  await open(page);
  await saveKey(page, 'anthropic-test', c.baseURL, KEY_C);
  await saveKey(page, 'no-anthropic-header', c.baseURL, KEY_C);
  const ours = await page.evaluate(
    ([w]) => (globalThis as unknown as Win).__egress.viaEgress(w as WorkerSpec),
    [worker('w3', 'anthropic-test', c.baseURL, 'echo')],
  );
  expect(ours).toEqual({ ok: true, text: 'hello egress' });
  const post = c.requests.find((r) => r.method === 'POST')!;
  expect(post.headers['x-api-key']).toBe(KEY_C);
  expect(post.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
  expect(post.headers.authorization).toBeUndefined();

  const plain = await page.evaluate(
    ([w]) => (globalThis as unknown as Win).__egress.viaEgress(w as WorkerSpec),
    [worker('w3', 'no-anthropic-header', c.baseURL, 'echo')],
  );
  expect(plain.ok).toBe(false);
  expect(plain.error?.kind).toBe('auth');
});

test.describe('Test connection in the browser', () => {
  let bare: Server;
  let bareCorp: Server;
  let bareURL: string;
  let bareCorpURL: string;
  test.beforeAll(async () => {
    // Local servers with CORS off, as Ollama is for an origin it was not told about: one that also sends
    // no Cross-Origin-Resource-Policy (like Ollama), one that does.
    const serve = (corp: boolean) =>
      createServer((req, res) => {
        res.writeHead(req.method === 'OPTIONS' ? 204 : 200, {
          'content-type': 'application/json',
          ...(corp ? { 'cross-origin-resource-policy': 'cross-origin' } : {}),
        });
        res.end(req.method === 'OPTIONS' ? '' : '{"object":"list","data":[]}');
      });
    bare = serve(false);
    bareCorp = serve(true);
    for (const server of [bare, bareCorp]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    bareURL = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
    bareCorpURL = `http://127.0.0.1:${(bareCorp.address() as AddressInfo).port}/v1`;
  });
  test.afterAll(async () => {
    for (const server of [bare, bareCorp])
      await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('gives a specific answer for each failure', async ({ page, baseURL }) => {
    await open(page);
    await saveKey(page, 'vllm', a.baseURL, KEY_A);
    await saveKey(page, 'llamacpp', b.baseURL, 'sk-wrong-key-000000000000');
    const check = (providerId: string, url: string, model?: string) =>
      page.evaluate(([p, u, m]) => (globalThis as unknown as Win).__egress.connection(p!, u!, m), [
        providerId,
        url,
        model,
      ] as const);

    expect(await check('vllm', a.baseURL, 'echo')).toMatchObject({ ok: true });
    expect(await check('vllm', a.baseURL, 'no-such-model')).toMatchObject({
      ok: false,
      problem: 'unknown-model',
    });
    const badKey = await check('llamacpp', b.baseURL, 'echo');
    expect(badKey).toMatchObject({ ok: false, problem: 'bad-key', status: 401 });
    expect(JSON.stringify(badKey)).not.toContain('sk-wrong-key');

    // The probe sees a server that answers no-cors requests readably (CORP): CORS is the problem.
    const noCors = await check('ollama', bareCorpURL);
    expect(noCors).toMatchObject({ ok: false, problem: 'local-cors' });
    expect(noCors.ok === false && noCors.hint).toContain(`OLLAMA_ORIGINS=${originOf(baseURL!)}`);
    const lmStudio = await check('lmstudio', bareCorpURL);
    expect(lmStudio).toMatchObject({ ok: false, problem: 'local-cors' });
    expect(lmStudio.ok === false && lmStudio.hint).toMatch(/--cors/);

    // On this cross-origin isolated page (COEP credentialless) a no-cors probe gets an answer from a
    // server without CORP too: it is told from a dead port (under require-corp both failed alike).
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const bareResult = await check('ollama', bareURL);
    expect(bareResult).toMatchObject({ ok: false, problem: 'local-cors' });
    expect(bareResult.ok === false && bareResult.hint).toContain('OLLAMA_ORIGINS=');
    const dead = await check('ollama', 'http://127.0.0.1:1/v1');
    expect(dead).toMatchObject({ ok: false, problem: 'unreachable' });
    // Nothing listens there: how to allow CORS would not help.
    expect(dead.ok === false && dead.hint).toBeFalsy();

    // The probes that told CORS from unreachable went through egress too, without a key.
    const ledger = await page.evaluate(() => (globalThis as unknown as Win).__egress.ledger());
    const probes = ledger.filter((e) => e.purpose === 'probe');
    expect(probes.map((e) => [e.state, e.status ?? null, e.keyAttached])).toEqual([
      ['done', 0, false],
      ['done', 0, false],
      ['done', 0, false],
      ['error', null, false],
    ]);
    // The failed probe's row says what it means, as the chat row does, not "TypeError: Failed to fetch".
    expect(probes[3]?.error).toContain('Nothing is listening at 127.0.0.1:1 (connection refused)');
  });
});
