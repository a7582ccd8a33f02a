import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openaiSdkHeaders } from '../../provider/sdk-headers.ts';
import { STRICT_ALLOWED_HEADERS, startProvider, type TestProvider, tokenize } from '../../provider/server.ts';

let p: TestProvider;
beforeAll(async () => {
  p = await startProvider({ retryAfterMs: 20 });
});
afterAll(() => p.close());

it('the real openai SDK sends x-stainless-* headers that a strict preflight would refuse', async () => {
  const headers = await openaiSdkHeaders();
  expect(headers.authorization).toBe('Bearer sk-test');
  const stainless = Object.keys(headers).filter((h) => h.startsWith('x-stainless-'));
  expect(stainless).toEqual(
    expect.arrayContaining(['x-stainless-os', 'x-stainless-lang', 'x-stainless-retry-count']),
  );
  const refused = Object.keys(headers).filter(
    (h) => !(STRICT_ALLOWED_HEADERS as readonly string[]).includes(h),
  );
  expect(refused).toEqual(stainless);
});

it('the openai SDK streams from the provider, with usage equal to the streamed tokens', async () => {
  const client = new OpenAI({ baseURL: p.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'upper',
    messages: [{ role: 'user', content: 'shout these words' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  expect(text).toBe('SHOUT THESE WORDS');
  expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: tokenize(text).length });
});

it('the openai SDK retries a 429 after retry-after-ms and then succeeds', async () => {
  p.clearRequests();
  const client = new OpenAI({ baseURL: p.baseURL, apiKey: 'sk-test', maxRetries: 2 });
  const done = await client.chat.completions.create({
    model: 'fault:429x1',
    messages: [{ role: 'user', content: 'again' }],
  });
  expect(done.choices[0]?.message.content).toBe('again');
  expect(p.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
});

it('the openai SDK maps the provider’s errors to its error classes', async () => {
  const client = new OpenAI({ baseURL: p.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const ask = (model: string) =>
    client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] });
  await expect(ask('fault:401')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  await expect(ask('fault:403')).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  await expect(ask('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  await expect(ask('fault:429')).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  await expect(ask('fault:500')).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  const err = await ask('no-such-model').then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err?.message).toContain('The model `no-such-model` does not exist');
});
