import { openaiSdkHeaders } from '../provider/sdk-headers.ts';
import {
  ANTHROPIC_BROWSER_HEADER,
  type CorsMode,
  startProvider,
  type TestProvider,
} from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';
import { openStepsByDefault } from './steps-open.ts';

// Real preflights through Chromium, from the app's own cross-origin-isolated page (COEP require-corp) to
// the test provider on another port of 127.0.0.1.

type Outcome =
  | { ok: true; status: number; body: string; retryAfter: string | null }
  | { ok: false; error: string };

function pageFetch(
  page: Page,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Outcome> {
  return page.evaluate(
    async ({ url, headers, body }) => {
      try {
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
        return {
          ok: true,
          status: res.status,
          body: await res.text(),
          retryAfter: res.headers.get('retry-after'),
        };
      } catch (error) {
        return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    },
    { url, headers, body },
  ) as Promise<Outcome>;
}

const chat = { model: 'echo', messages: [{ role: 'user', content: 'hello from the page' }] };
const basic = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };

let provider: TestProvider | undefined;
async function start(cors: CorsMode): Promise<TestProvider> {
  provider = await startProvider({ cors });
  return provider;
}
test.afterEach(async () => {
  await provider?.close();
  provider = undefined;
});
// One page of the app for the file: what is tested is each request's preflight, from a page of the app's
// origin, not the page's load, and each test's provider is a new origin (a port of its own), so no preflight
// a test's request could reuse is cached.
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
  await page.goto('/');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
});
test.afterAll(() => page?.close());

test('strict: authorization + content-type pass the preflight and the answer is readable', async () => {
  const p = await start('strict');
  const outcome = await pageFetch(page, `${p.baseURL}/chat/completions`, basic, chat);
  expect(outcome).toMatchObject({ ok: true, status: 200 });
  const body = JSON.parse((outcome as { body: string }).body) as {
    choices: { message: { content: string } }[];
  };
  expect(body.choices[0]!.message.content).toBe('hello from the page');
  expect(p.requests.map((r) => r.method)).toEqual(['OPTIONS', 'POST']);
  const preflight = p.requests[0]!;
  expect(preflight.headers['access-control-request-headers']).toBe('authorization,content-type');
  expect(preflight.headers.origin).toBe(new URL(page.url()).origin);
});

test('strict: the openai SDK’s x-stainless-* headers fail the preflight and nothing is sent', async () => {
  const sdkHeaders = await openaiSdkHeaders();
  expect(Object.keys(sdkHeaders)).toContain('x-stainless-os');
  const p = await start('strict');
  const outcome = await pageFetch(page, `${p.baseURL}/chat/completions`, sdkHeaders, chat);
  expect(outcome.ok).toBe(false);
  expect((outcome as { error: string }).error).toMatch(/^TypeError: Failed to fetch/);
  // Only the preflight reached the provider: the request itself never left the page.
  expect(p.requests.map((r) => r.method)).toEqual(['OPTIONS']);
  expect(p.requests[0]!.headers['access-control-request-headers']).toContain('x-stainless-os');

  // One extra header is enough.
  p.clearRequests();
  const one = await pageFetch(
    page,
    `${p.baseURL}/chat/completions`,
    { ...basic, 'x-stainless-os': 'Linux' },
    chat,
  );
  expect(one.ok).toBe(false);
  expect(p.requests.map((r) => r.method)).toEqual(['OPTIONS']);
});

test('anthropic: passes with anthropic-dangerous-direct-browser-access, fails without', async () => {
  const p = await start('anthropic');
  const url = `${p.baseURL}/chat/completions`;
  const anthropicHeaders = {
    'x-api-key': 'sk-test',
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
  };
  const withHeader = await pageFetch(
    page,
    url,
    { ...anthropicHeaders, [ANTHROPIC_BROWSER_HEADER]: 'true' },
    chat,
  );
  expect(withHeader).toMatchObject({ ok: true, status: 200 });
  const without = await pageFetch(page, url, anthropicHeaders, chat);
  expect(without).toMatchObject({ ok: true, status: 401 });
  expect((without as { body: string }).body).toContain(
    `CORS requests must set '${ANTHROPIC_BROWSER_HEADER}' header`,
  );
  expect(p.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
});

test('open: any header passes; x-test-fault works and Retry-After is readable; SSE streams', async () => {
  const p = await start('open');
  const url = `${p.baseURL}/chat/completions`;
  const sdk = await pageFetch(page, url, { ...basic, 'x-stainless-os': 'Linux' }, chat);
  expect(sdk).toMatchObject({ ok: true, status: 200 });
  const limited = await pageFetch(page, url, { ...basic, 'x-test-fault': '429' }, chat);
  expect(limited).toMatchObject({ ok: true, status: 429, retryAfter: '1' });

  const streamed = await page.evaluate(async (url) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'upper',
        messages: [{ role: 'user', content: 'streamed in the page' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    return await res.text();
  }, url);
  const data = streamed
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6));
  expect(data.at(-1)).toBe('[DONE]');
  const text = data
    .slice(0, -1)
    .map(
      (d) =>
        (JSON.parse(d) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
    )
    .join('');
  expect(text).toBe('STREAMED IN THE PAGE');
});
