import { describe, expect, it } from 'vitest';
import { useDialectProviders } from '../../provider/dialect-providers.ts';
import { type DialectMode, OPENROUTER_COMMENT, openrouterCost } from '../../provider/dialects/index.ts';
import { startProvider } from '../../provider/server.ts';
import { readSse } from './sse.ts';

// The test provider's dialect modes themselves, at the wire: what each sends and refuses.

const ORIGIN = 'http://127.0.0.1:4173';
const at = useDialectProviders(['openai', 'mistral', 'gemini', 'openrouter', 'xai', 'groq', 'deepseek'], {
  cors: 'open',
  models: [
    { id: 'thinker', behaviour: { kind: 'fixed', text: 'Four.' }, reasoning: { text: 'Two and two.' } },
    {
      id: 'deepseek-reasoner',
      behaviour: { kind: 'fixed', text: 'Four.' },
      reasoning: { text: 'Two and two.' },
    },
  ],
});

const post = (mode: DialectMode, body: Record<string, unknown>) =>
  fetch(`${at(mode).baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'upper', messages: [{ role: 'user', content: 'a b c' }], ...body }),
  });

/** The parsed `data:` chunks of a streamed answer, `[DONE]` left out. */
async function chunks(mode: DialectMode, body: Record<string, unknown> = {}) {
  const response = await post(mode, { stream: true, ...body });
  expect(response.status).toBe(200);
  const { data } = await readSse(response);
  expect(data.at(-1)).toBe('[DONE]');
  return data.slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>);
}

const withUsage = { stream_options: { include_usage: true } };

describe('mistral', () => {
  it.each([
    [{ stream_options: { include_usage: true } }, ['body', 'stream_options', 'include_usage']],
    [{ store: false }, ['body', 'store']],
    [{ max_completion_tokens: 5 }, ['body', 'max_completion_tokens']],
    [
      {
        messages: [
          { role: 'assistant', content: 'x', reasoning_content: 'y' },
          { role: 'user', content: 'z' },
        ],
      },
      ['body', 'messages', 0, 'reasoning_content'],
    ],
  ])('rejects %j with 422 extra_forbidden', async (extra, loc) => {
    const response = await post('mistral', extra);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      object: 'error',
      message: { detail: [{ type: 'extra_forbidden', loc, msg: 'Extra inputs are not permitted' }] },
      type: 'invalid_request_error',
    });
  });

  it('sends usage on the finish chunk without being asked', async () => {
    const all = await chunks('mistral');
    const finish = all.at(-1) as { choices: { finish_reason: string }[]; usage: unknown };
    expect(finish.choices[0]?.finish_reason).toBe('stop');
    expect(finish.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
    expect(all.slice(0, -1).every((c) => !('usage' in c))).toBe(true);
  });

  it('streams reasoning as thinking parts of a content array', async () => {
    const all = await chunks('mistral', { model: 'thinker' });
    const delta = (all[1] as { choices: { delta: { content: unknown } }[] }).choices[0]?.delta;
    expect(delta?.content).toEqual([{ type: 'thinking', thinking: [{ type: 'text', text: 'Two' }] }]);
  });

  it('answers 401 with {message}', async () => {
    const p = await startProvider({ dialect: 'mistral', apiKey: 'k' });
    try {
      const response = await fetch(`${p.baseURL}/models`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ message: 'Unauthorized' });
    } finally {
      await p.close();
    }
  });
});

describe('gemini', () => {
  it('fails a preflight that asks for x-stainless-* headers, even with open CORS', async () => {
    const ask = (headers: string) =>
      fetch(`${at('gemini').baseURL}/chat/completions`, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': headers,
        },
      });
    expect((await ask('authorization,content-type')).status).toBe(204);
    const refused = await ask('authorization,content-type,x-stainless-os');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends the running usage on every chunk when asked, and lists models/ ids', async () => {
    const all = await chunks('gemini', withUsage);
    const completions = all.map((c) => (c.usage as { completion_tokens: number }).completion_tokens);
    expect(completions).toEqual([0, 1, 2, 3, 3]);
    const models = (await (await fetch(`${at('gemini').baseURL}/models`)).json()) as {
      data: { id: string }[];
    };
    expect(models.data.map((m) => m.id)).toContain('models/echo');
  });

  it('sends errors as a JSON array', async () => {
    const response = await post('gemini', { model: 'no-such' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual([
      { error: { code: 404, message: expect.stringContaining('no-such'), status: 'NOT_FOUND' } },
    ]);
  });
});

describe('openrouter', () => {
  it('sends comment lines first and usage with cost in its last message, unasked', async () => {
    const response = await post('openrouter', { stream: true });
    const text = await response.text();
    expect(text.startsWith(`${OPENROUTER_COMMENT}\n\n${OPENROUTER_COMMENT}\n\n`)).toBe(true);
    const all = await chunks('openrouter');
    const last = all.at(-1) as { choices: unknown[]; usage: Record<string, unknown> };
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 3,
      cost: openrouterCost({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 }),
    });
  });

  it('streams reasoning in delta.reasoning', async () => {
    const all = await chunks('openrouter', { model: 'thinker' });
    expect((all[1] as { choices: { delta: unknown }[] }).choices[0]?.delta).toEqual({ reasoning: 'Two' });
  });
});

describe('xai', () => {
  it('puts usage on the finish chunk, then sends a chunk with empty choices', async () => {
    const all = await chunks('xai', withUsage);
    const [finish, extra] = all.slice(-2) as { choices: { finish_reason?: string }[]; usage?: unknown }[];
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    expect(finish?.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 3 });
    expect(extra?.choices).toEqual([]);
    expect(extra).not.toHaveProperty('usage');
  });
});

describe('groq and deepseek', () => {
  it('groq: x_groq on chunks, usage only when asked', async () => {
    const unasked = await chunks('groq');
    expect(unasked[0]).toHaveProperty('x_groq');
    expect(unasked.some((c) => c.usage)).toBe(false);
    expect((await chunks('groq', withUsage)).at(-1)?.usage).toMatchObject({ prompt_tokens: 3 });
  });

  it('deepseek: a keep-alive comment, cache-hit tokens, reasoning_content, and a 400 for it sent back', async () => {
    const text = await (await post('deepseek', { stream: true })).text();
    expect(text.startsWith(': keep-alive\n\n')).toBe(true);
    const all = await chunks('deepseek', { model: 'thinker', ...withUsage });
    expect((all[1] as { choices: { delta: unknown }[] }).choices[0]?.delta).toEqual({
      reasoning_content: 'Two',
    });
    expect(all.at(-1)?.usage).toMatchObject({
      prompt_cache_hit_tokens: 1,
      prompt_cache_miss_tokens: 2,
      completion_tokens: 4,
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    const sentBack = await post('deepseek', {
      messages: [
        { role: 'assistant', content: 'x', reasoning_content: 'y' },
        { role: 'user', content: 'z' },
      ],
    });
    expect(sentBack.status).toBe(400);
  });

  it('deepseek-reasoner: two user or assistant messages in a row are a 400 naming them; another model takes them', async () => {
    const successive = {
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'the question' },
        { role: 'user', content: 'the task' },
      ],
    };
    const refused = await post('deepseek', { model: 'deepseek-reasoner', ...successive });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: {
        message:
          'deepseek-reasoner does not support successive user or assistant messages (messages[1] and ' +
          'messages[2] in your input). You should interleave the user/assistant messages in the message sequence.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    });
    const answers = await post('deepseek', {
      model: 'deepseek-reasoner',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    });
    expect(((await answers.json()) as { error: { message: string } }).error.message).toContain(
      '(messages[1] and messages[2] in your input)',
    );
    expect((await post('deepseek', { model: 'upper', ...successive })).status).toBe(200);
  });
});

describe('openai (the default)', () => {
  it('is unchanged: usage null on chunks and a usage chunk only when asked', async () => {
    const asked = await chunks('openai', withUsage);
    expect(asked.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(asked.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 3 } });
    expect((await chunks('openai')).some((c) => 'usage' in c)).toBe(false);
  });
});
