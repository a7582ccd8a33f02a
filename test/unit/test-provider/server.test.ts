import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FAULT_KINDS,
  parseFault,
  startProvider,
  TABLE_ANSWERS,
  type TestProvider,
  tokenize,
} from '../../provider/server.ts';
import { chunks, readSse, streamedText } from './sse.ts';

let p: TestProvider;
beforeAll(async () => {
  p = await startProvider({ retryAfterMs: 1500 });
});
afterAll(() => p.close());
afterEach(() => {
  p.clearRequests();
  p.resetFaults();
});

type Msg = { role: string; content: unknown };
const user = (content: string): Msg => ({ role: 'user', content });

function post(body: unknown, headers: Record<string, string> = {}, provider = p): Promise<Response> {
  return fetch(`${provider.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function complete(model: string, messages: Msg[], extra: Record<string, unknown> = {}) {
  const res = await post({ model, messages, ...extra });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    id: string;
    object: string;
    model: string;
    choices: { index: number; message: { role: string; content: string }; finish_reason: string }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
}

async function stream(model: string, messages: Msg[], headers: Record<string, string> = {}) {
  const res = await post({ model, messages, stream: true, stream_options: { include_usage: true } }, headers);
  return { res, read: await readSse(res) };
}

describe('tokenizer', () => {
  it('splits into whitespace+word pieces that join back to the text', () => {
    expect(tokenize('Hello  big world\n')).toEqual(['Hello', '  big', ' world', '\n']);
    expect(tokenize('')).toEqual([]);
    const text = ' a\tb  c ';
    expect(tokenize(text).join('')).toBe(text);
  });
});

describe('chat completions, JSON', () => {
  it('echoes the last user message with OpenAI-shaped body and matching usage', async () => {
    const body = await complete('echo', [
      { role: 'system', content: 'Be brief.' },
      user('first question'),
      { role: 'assistant', content: 'ok' },
      user('say these four words'),
    ]);
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('echo');
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0]).toMatchObject({
      index: 0,
      message: { role: 'assistant', content: 'say these four words' },
      finish_reason: 'stop',
    });
    // 2 + 2 + 1 + 4 prompt tokens, 4 completion tokens
    expect(body.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
  });

  it('reads text content parts', async () => {
    const body = await complete('echo', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'part one' },
          { type: 'text', text: ' and two' },
        ],
      },
    ]);
    expect(body.choices[0]!.message.content).toBe('part one and two');
    expect(body.usage.prompt_tokens).toBe(4);
  });

  it('runs the built-in upper, reverse and fixed: models', async () => {
    expect((await complete('upper', [user('make me loud')])).choices[0]!.message.content).toBe(
      'MAKE ME LOUD',
    );
    expect((await complete('reverse', [user('abc d')])).choices[0]!.message.content).toBe('d cba');
    const fixed = await complete('fixed:The answer is 42.', [user('anything')]);
    expect(fixed.choices[0]!.message.content).toBe('The answer is 42.');
    expect(fixed.usage.completion_tokens).toBe(4);
  });

  it('answers the table model from the last, then the first user message, else the fallback', async () => {
    const [question, expected] = Object.entries(TABLE_ANSWERS)[0]!;
    expect((await complete('table', [user(`  ${question} `)])).choices[0]!.message.content).toBe(expected);
    const withContext = await complete('table', [user(question), user('Context: earlier answers...')]);
    expect(withContext.choices[0]!.message.content).toBe(expected);
    expect((await complete('table', [user('What is unknown?')])).choices[0]!.message.content).toBe(
      "I don't know.",
    );
  });

  it('uses models given as options, replacing built-ins, and setModel at run time', async () => {
    const custom = await startProvider({
      models: [
        { id: 'echo', behaviour: { kind: 'fixed', text: 'replaced' } },
        { id: 'quiz', behaviour: { kind: 'table', answers: { 'Q?': 'A.' }, fallback: 'no idea' } },
      ],
    });
    try {
      const ask = async (model: string, q: string) => {
        const res = await post({ model, messages: [user(q)] }, {}, custom);
        return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
          .content;
      };
      expect(await ask('echo', 'hi')).toBe('replaced');
      expect(await ask('quiz', 'Q?')).toBe('A.');
      expect(await ask('quiz', 'other')).toBe('no idea');
      custom.setModel({ id: 'shout', behaviour: { kind: 'transform', fn: (s) => `${s}!` } });
      expect(await ask('shout', 'hey')).toBe('hey!');
    } finally {
      await custom.close();
    }
  });

  it('truncates at max_tokens with finish_reason length', async () => {
    const body = await complete('echo', [user('one two three four five')], { max_tokens: 2 });
    expect(body.choices[0]!.message.content).toBe('one two');
    expect(body.choices[0]!.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(2);
  });

  it('rejects an unknown model with 404 and OpenAI’s message', async () => {
    const res = await post({ model: 'gpt-nope', messages: [user('x')] });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: 'The model `gpt-nope` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: null,
      },
    });
  });

  it('rejects a body that is not JSON, and a request without messages, with 400', async () => {
    const bad = await post('{not json');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const empty = await post({ model: 'echo', messages: [] });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { param: string } }).error.param).toBe('messages');
  });

  it('answers other paths with 404 and wrong methods with 405', async () => {
    expect((await fetch(`${p.url}/v1/embeddings`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${p.baseURL}/chat/completions`)).status).toBe(405);
  });
});

describe('chat completions, SSE', () => {
  it('streams OpenAI-shaped chunks, then usage that equals what was streamed, then [DONE]', async () => {
    const text = 'stream  these words, please\nand this line';
    const { res, read } = await stream('echo', [user(text)]);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(read.error).toBeUndefined();
    expect(read.data.at(-1)).toBe('[DONE]');
    const list = chunks(read);
    for (const c of list) {
      expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'echo', id: list[0]!.id });
      expect(typeof c.created).toBe('number');
    }
    expect(list[0]!.choices[0]).toMatchObject({
      index: 0,
      delta: { role: 'assistant', content: '' },
      finish_reason: null,
    });
    const usageChunk = list.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    const answerChunks = list.slice(0, -1);
    expect(answerChunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    for (const c of answerChunks) expect(c.usage).toBeNull();
    expect(streamedText(answerChunks)).toBe(text);
    const contentChunks = answerChunks.filter((c) => c.choices[0]!.delta.content);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: tokenize(text).length,
      completion_tokens: contentChunks.length,
      total_tokens: tokenize(text).length + contentChunks.length,
    });
    expect(contentChunks.length).toBe(tokenize(text).length);
  });

  it('sends no usage chunk and no usage field without include_usage', async () => {
    const res = await post({ model: 'upper', messages: [user('a b')], stream: true });
    const read = await readSse(res);
    const list = chunks(read);
    expect(streamedText(list)).toBe('A B');
    expect(list.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('streams the slow model with the same tokens as the fast one', async () => {
    const { read } = await stream('slow', [user('one two three')]);
    expect(streamedText(chunks(read))).toBe('one two three');
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('hurry() sends the rest of a stream at once', async () => {
    // A minute a token: without hurry() this stream would outlast the test's timeout.
    p.setModel({
      id: 'glacial',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 0, perTokenMs: 60_000 },
    });
    // The headers come with the first token, when the stream is already waiting for its second.
    const res = await post({ model: 'glacial', messages: [user('one two three')], stream: true });
    p.hurry();
    const read = await readSse(res);
    expect(streamedText(chunks(read))).toBe('one two three');
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('holds a stream where holdWhen says, until hurry()', async () => {
    p.setModel({
      id: 'held',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 0, perTokenMs: 0, holdWhen: (sent) => sent.includes('two') },
    });
    const res = await post({ model: 'held', messages: [user('one two three')], stream: true });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    const text = () => [...raw.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
    while (!text().includes('two')) raw += decoder.decode((await reader.read()).value, { stream: true });
    // Without latency the rest would have come with it: it waits.
    expect(text()).toBe('one two');
    p.hurry();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      raw += decoder.decode(chunk.value, { stream: true });
    expect(text()).toBe('one two three');
    expect(raw).toContain('[DONE]');
  });

  it('stops streaming when the client aborts', async () => {
    const controller = new AbortController();
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', messages: [user('a b c d e f g h i j k l m n')], stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });
});

describe('models', () => {
  it('lists registered models, a fixed: example and every fault id', async () => {
    const res = await fetch(`${p.baseURL}/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string; object: string }[] };
    expect(body.object).toBe('list');
    const ids = body.data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['echo', 'upper', 'reverse', 'table', 'slow']));
    expect(ids.some((id) => id.startsWith('fixed:'))).toBe(true);
    for (const kind of FAULT_KINDS) expect(ids).toContain(`fault:${kind}`);
    expect(body.data.every((m) => m.object === 'model')).toBe(true);
  });
});

describe('faults', () => {
  it('parses fault specs', () => {
    expect(parseFault('429')).toEqual({ kind: '429' });
    expect(parseFault('cutx3')).toEqual({ kind: 'cut', times: 3 });
    expect(parseFault('418')).toBeUndefined();
    expect(parseFault('')).toBeUndefined();
  });

  const statusCases: [string, number, string][] = [
    ['401', 401, 'invalid_api_key'],
    ['403', 403, 'model_not_allowed'],
    ['404', 404, 'model_not_found'],
    ['429', 429, 'rate_limit_exceeded'],
    ['500', 500, 'server_error'],
    ['503', 503, 'server_error'],
  ];
  for (const [kind, status, marker] of statusCases) {
    it(`fault ${kind} answers ${status} with an OpenAI-shaped error, by model id and by header`, async () => {
      for (const res of [
        await post({ model: `fault:${kind}`, messages: [user('x')] }),
        await post({ model: 'echo', messages: [user('x')], stream: true }, { 'x-test-fault': kind }),
      ]) {
        expect(res.status).toBe(status);
        const body = (await res.json()) as { error: { message: string; type: string; code: string | null } };
        expect(typeof body.error.message).toBe('string');
        expect(body.error.message.length).toBeGreaterThan(0);
        expect(JSON.stringify(body.error)).toContain(marker);
      }
    });
  }

  it('429 and 503 carry retry-after-ms and retry-after (seconds, rounded up) from the options', async () => {
    for (const model of ['fault:429', 'fault:503']) {
      const res = await post({ model, messages: [user('x')] });
      expect(res.headers.get('retry-after-ms')).toBe('1500');
      expect(res.headers.get('retry-after')).toBe('2');
    }
    const res = await post({ model: 'echo', messages: [user('x')] }, { 'x-test-fault': '429' });
    expect(res.headers.get('retry-after')).toBe('2');
  });

  it('a model’s own fault sets its own Retry-After', async () => {
    p.setModel({ id: 'busy', behaviour: { kind: 'echo' }, fault: { kind: '429', retryAfterMs: 3000 } });
    const res = await post({ model: 'busy', messages: [user('x')] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after-ms')).toBe('3000');
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('fails the first N requests, then answers (model id), and resetFaults starts over', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await post({ model: 'fault:429x2', messages: [user('hi')] })).status);
    expect(statuses).toEqual([429, 429, 200, 200]);
    const ok = await post({ model: 'fault:429x2', messages: [user('hi')] });
    expect(
      ((await ok.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
    ).toBe('hi');
    p.resetFaults();
    expect((await post({ model: 'fault:429x2', messages: [user('hi')] })).status).toBe(429);
  });

  it('fails the first N requests, then answers (header), counted per model', async () => {
    const statuses: number[] = [];
    for (const model of ['upper', 'upper', 'echo', 'upper'])
      statuses.push((await post({ model, messages: [user('hi')] }, { 'x-test-fault': '503x1' })).status);
    expect(statuses).toEqual([503, 200, 503, 200]);
  });

  it('cut: the stream breaks off mid-answer without [DONE]', async () => {
    const text = 'one two three four five six';
    const { res, read } = await stream('fault:cut', [user(text)]);
    expect(res.status).toBe(200);
    expect(read.error).toBeInstanceOf(TypeError);
    expect(read.data).not.toContain('[DONE]');
    const got = streamedText(chunks(read));
    expect(got.length).toBeGreaterThan(0);
    expect(text.startsWith(got)).toBe(true);
    expect(got.length).toBeLessThan(text.length);
  });

  it('cut by header on any model, and cut JSON bodies', async () => {
    const { read } = await stream('upper', [user('a b c d')], { 'x-test-fault': 'cut' });
    expect(read.error).toBeDefined();
    expect(streamedText(chunks(read))).toBe('A B');
    const res = await post({ model: 'fault:cut', messages: [user('a b c d')] });
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it('stall: the stream starts, then sends nothing until the client gives up', async () => {
    const controller = new AbortController();
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fault:stall', messages: [user('a b c')], stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    expect(first.value).toContain('"role":"assistant"');
    const next = reader.read();
    const outcome = await Promise.race([
      next.then(() => 'data'),
      new Promise((resolve) => setTimeout(() => resolve('silent'), 500)),
    ]);
    expect(outcome).toBe('silent');
    controller.abort();
    await expect(next).rejects.toThrow();
  });

  it('stall on a JSON request: headers, then no body', async () => {
    const controller = new AbortController();
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-fault': 'stall' },
      body: JSON.stringify({ model: 'echo', messages: [user('a')] }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const body = res.text();
    const outcome = await Promise.race([
      body.then(() => 'body'),
      new Promise((resolve) => setTimeout(() => resolve('silent'), 500)),
    ]);
    expect(outcome).toBe('silent');
    controller.abort();
    await expect(body).rejects.toThrow();
  });

  it('malformed: one SSE data line is not JSON; the rest of the stream is normal', async () => {
    const { read } = await stream('fault:malformed', [user('a b c')]);
    expect(read.error).toBeUndefined();
    const bad = read.data.filter((d) => {
      if (d === '[DONE]') return false;
      try {
        JSON.parse(d);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
    expect(read.data.indexOf(bad[0]!)).toBe(2); // after the role chunk and the first token
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('malformed on a JSON request: status 200 and a body that does not parse', async () => {
    const res = await post({ model: 'echo', messages: [user('a b')] }, { 'x-test-fault': 'malformed' });
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow(SyntaxError);
  });

  it('parses fault kinds with hyphens, with and without a count', () => {
    expect(parseFault('html-as-sse')).toEqual({ kind: 'html-as-sse' });
    expect(parseFault('empty-donex1')).toEqual({ kind: 'empty-done', times: 1 });
    expect(parseFault('307')).toEqual({ kind: '307' });
  });

  it.each(['302', '307'])('fault %s redirects to the same API under /moved, which answers', async (kind) => {
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: `fault:${kind}`, messages: [user('moved on')] }),
      redirect: 'manual',
    });
    expect(res.status).toBe(Number(kind));
    const location = res.headers.get('location');
    expect(location).toBe(`${p.url}/moved/v1/chat/completions`);
    // A client that follows a 307 (which keeps the body) gets the answer, not the fault again.
    const followed = await fetch(location!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: `fault:${kind}`, messages: [user('moved on')] }),
    });
    expect(
      ((await followed.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content,
    ).toBe('moved on');
  });

  it.each([
    ['html', 'text/html; charset=utf-8'],
    ['html-as-sse', 'text/event-stream'],
  ])('fault %s answers 200 with a web page labelled %s', async (kind, type) => {
    const { res } = await stream(`fault:${kind}`, [user('a')]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
  });

  it('fault html sends a page with a title', async () => {
    const res = await post({ model: 'fault:html', messages: [user('a')], stream: true });
    expect(await res.text()).toMatch(/^<!DOCTYPE html>.*<title>Welcome to nginx!<\/title>/s);
  });

  it('fault no-choices answers 200 JSON without choices, streamed or not', async () => {
    for (const streamed of [true, false]) {
      const res = await post({ model: 'fault:no-choices', messages: [user('a')], stream: streamed });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ object: 'list', data: [] });
    }
  });

  it('fault ignore-stream answers a stream request with a whole JSON completion and usage', async () => {
    const res = await post({ model: 'fault:ignore-stream', messages: [user('a b')], stream: true });
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as {
      object: string;
      choices: { message: { content: string } }[];
      usage: unknown;
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]?.message.content).toBe('a b');
    expect(body.usage).toEqual({ prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
  });

  it('fault empty-done streams only [DONE]', async () => {
    const { read } = await stream('fault:empty-done', [user('a b')]);
    expect(read.data).toEqual(['[DONE]']);
  });

  it('fault empty-finish streams empty content with a finish_reason, and usage of no completion tokens', async () => {
    const { read } = await stream('fault:empty-finish', [user('a b')]);
    const list = chunks(read);
    expect(streamedText(list)).toBe('');
    expect(
      list.some((c) => c.choices[0]?.finish_reason === 'stop' && c.choices[0]?.delta.content === ''),
    ).toBe(true);
    expect(list.at(-1)?.usage?.completion_tokens).toBe(0);
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('fault empty-no-choices streams chunks without choices, then [DONE]', async () => {
    const { read } = await stream('fault:empty-no-choices', [user('a b')]);
    const list = chunks(read);
    expect(list.every((c) => (c.choices ?? []).length === 0)).toBe(true);
    expect(list[0]).not.toHaveProperty('choices');
    expect(read.data.at(-1)).toBe('[DONE]');
  });

  it('an unknown x-test-fault value is ignored', async () => {
    const res = await post({ model: 'echo', messages: [user('fine')] }, { 'x-test-fault': 'teapot' });
    expect(res.status).toBe(200);
  });
});

describe('recording', () => {
  it('records method, path, lower-cased headers, parsed body and time, preflights included', async () => {
    const before = Date.now();
    await post({ model: 'echo', messages: [user('recorded')] }, { 'X-Custom-Thing': 'Yes' });
    await fetch(`${p.baseURL}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    await fetch(`${p.baseURL}/chat/completions`, { method: 'POST', body: 'plain text' });
    expect(p.requests).toHaveLength(3);
    const [chat, preflight, text] = p.requests;
    expect(chat).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'echo', messages: [{ role: 'user', content: 'recorded' }] },
    });
    expect(chat!.headers['x-custom-thing']).toBe('Yes');
    expect(chat!.headers['content-type']).toBe('application/json');
    expect(Object.keys(chat!.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(chat!.time).toBeGreaterThanOrEqual(before);
    expect(preflight).toMatchObject({ method: 'OPTIONS', body: undefined });
    expect(preflight!.headers['access-control-request-headers']).toBe('content-type');
    expect(text!.body).toBe('plain text');
    p.clearRequests();
    expect(p.requests).toHaveLength(0);
  });
});

describe('auth', () => {
  it('requires the key when apiKey is set, by Bearer or x-api-key, on chat and models', async () => {
    const guarded = await startProvider({ apiKey: 'sk-test-123' });
    try {
      const chat = (headers: Record<string, string>) =>
        post({ model: 'echo', messages: [user('x')] }, headers, guarded);
      const missing = await chat({});
      expect(missing.status).toBe(401);
      const body = (await missing.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_api_key');
      expect((await chat({ authorization: 'Bearer sk-wrong' })).status).toBe(401);
      expect((await chat({ authorization: 'Bearer sk-test-123' })).status).toBe(200);
      expect((await chat({ 'x-api-key': 'sk-test-123' })).status).toBe(200);
      expect((await fetch(`${guarded.baseURL}/models`)).status).toBe(401);
      const models = await fetch(`${guarded.baseURL}/models`, {
        headers: { authorization: 'Bearer sk-test-123' },
      });
      expect(models.status).toBe(200);
      // The error never repeats a key it was sent.
      const wrong = await chat({ authorization: 'Bearer sk-wrong-secret' });
      expect(await wrong.text()).not.toContain('sk-wrong-secret');
    } finally {
      await guarded.close();
    }
  });
});

describe('close', () => {
  it('closes even with a stalled stream open', async () => {
    const q = await startProvider();
    const res = await fetch(`${q.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fault:stall', messages: [user('a')], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    await q.close();
    await expect(reader.read()).rejects.toThrow();
    await expect(fetch(`${q.url}/v1/models`)).rejects.toThrow();
  });
});
