import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/providers/errors.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { ChatEvent } from '../../../src/providers/transport.ts';
import type { PartsMessage } from '../../../src/shared/chat.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { useDialectProviders } from '../../provider/dialect-providers.ts';
import { type DialectMode, OPENROUTER_COMMENT, openrouterCost } from '../../provider/dialects/index.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import type { ScriptedModel } from '../../provider/server.ts';

// The transport against the test provider speaking each provider's dialect: the worker's providerId picks
// the dialect (src/providers/dialects.ts), as in the app.

const THINKER: ScriptedModel = {
  id: 'thinker',
  behaviour: { kind: 'fixed', text: 'The answer is 4.' },
  reasoning: { text: 'Two plus two: count two, then two more.' },
};

const REASONER: ScriptedModel = { ...THINKER, id: 'deepseek-reasoner' };

const at = useDialectProviders(['mistral', 'gemini', 'openrouter', 'xai', 'groq', 'deepseek'], {
  models: [THINKER, REASONER],
});

function worker(mode: DialectMode, model = 'upper', providerId: string = mode): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'W1',
    providerId,
    baseURL: at(mode).baseURL,
    model,
    maxConcurrency: 4,
  });
}

async function collect(
  spec: WorkerSpec,
  messages: PartsMessage[] = [{ role: 'user', content: 'hello there world' }],
): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  const stream = createOpenAITransport({ fetch: directFetch }).stream(spec, {
    messages,
    signal: new AbortController().signal,
    runId: 'run-1',
    stepIndex: 0,
  });
  for await (const event of stream) events.push(event);
  return events;
}

const usages = (events: ChatEvent[]) => events.filter((e) => e.type === 'usage');
const answer = (events: ChatEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
const reasoning = (events: ChatEvent[]) => events.map((e) => (e.type === 'reasoning' ? e.text : '')).join('');
const lastPost = (mode: DialectMode) =>
  at(mode)
    .requests.filter((r) => r.method === 'POST')
    .at(-1);

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected the request to fail');
}

describe('Mistral', () => {
  it('gets no stream_options (a 422 otherwise) and still reports the usage it sends unasked', async () => {
    const events = await collect(worker('mistral'));
    expect(lastPost('mistral')?.body).not.toHaveProperty('stream_options');
    expect(answer(events)).toBe('HELLO THERE WORLD');
    expect(usages(events)).toEqual([{ type: 'usage', promptTokens: 3, completionTokens: 3 }]);
  });

  it("shows its 422 detail, not 'status code (no body)', when a request does carry a forbidden field", async () => {
    // A custom endpoint at Mistral speaks the generic dialect, which asks for usage: the 422 must be readable.
    const error = await failure(collect(worker('mistral', 'upper', 'custom')));
    expect(error.kind).toBe('bad-request');
    expect(error.message).toBe(
      'Request rejected (422): stream_options.include_usage: Extra inputs are not permitted',
    );
  });

  it('reads the thinking parts of a Magistral content array as reasoning', async () => {
    const events = await collect(worker('mistral', 'thinker'));
    expect(reasoning(events)).toBe(THINKER.reasoning?.text);
    expect(answer(events)).toBe('The answer is 4.');
  });

  it('shows its 404 body {object, message}', async () => {
    const error = await failure(collect(worker('mistral', 'no-such-model')));
    expect(error.message).toBe(
      'Unknown model or endpoint (404): The model `no-such-model` does not exist or you do not have access to it.',
    );
  });
});

describe('Gemini', () => {
  it('keeps the last of the running usages it sends on every chunk, never their sum', async () => {
    const events = await collect(worker('gemini'));
    expect(usages(events).length).toBeGreaterThan(1);
    expect(usages(events).at(-1)).toEqual({ type: 'usage', promptTokens: 3, completionTokens: 3 });
    expect(lastPost('gemini')?.body).toMatchObject({ stream_options: { include_usage: true } });
  });

  it('shows the message of its JSON-array error body', async () => {
    const error = await failure(collect(worker('gemini', 'fault:401')));
    expect(error.kind).toBe('auth');
    expect(error.message).toBe(
      'The key was rejected (401): Incorrect API key provided. You can find your API key in your account settings.',
    );
  });
});

describe('OpenRouter', () => {
  it('skips its SSE comment lines, asks for no usage, and reports the cost it sends', async () => {
    const events = await collect(worker('openrouter', 'thinker'));
    expect(lastPost('openrouter')?.body).not.toHaveProperty('stream_options');
    expect(answer(events)).toBe('The answer is 4.');
    expect(reasoning(events)).toBe(THINKER.reasoning?.text);
    const usage = usages(events).at(-1);
    expect(usage).toMatchObject({ type: 'usage', promptTokens: 3, reasoningTokens: 8 });
    const completion = 4 + 8;
    expect(usage?.type === 'usage' && usage.completionTokens).toBe(completion);
    expect(usage?.type === 'usage' && usage.cost).toBe(
      openrouterCost({ prompt_tokens: 3, completion_tokens: completion, total_tokens: 3 + completion }),
    );
  });

  it("the SDK's SSE decoder skips the comment lines: a raw stream with them reads the same", async () => {
    // Proof at the wire: the provider really sent comment lines before the first data line.
    const response = await fetch(`${at('openrouter').baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await response.text();
    expect(text.startsWith(`${OPENROUTER_COMMENT}\n\n`)).toBe(true);
    const events = await collect(worker('openrouter', 'echo'));
    expect(answer(events)).toBe('hello there world');
  });
});

describe('xAI', () => {
  it('reads usage off the finish chunk and is fine with the empty-choices chunk after it', async () => {
    const events = await collect(worker('xai', 'thinker'));
    expect(answer(events)).toBe('The answer is 4.');
    expect(reasoning(events)).toBe(THINKER.reasoning?.text);
    expect(usages(events)).toEqual([
      { type: 'usage', promptTokens: 3, completionTokens: 12, reasoningTokens: 8 },
    ]);
  });
});

describe('Groq', () => {
  it('asks for usage with stream_options and reads it', async () => {
    const events = await collect(worker('groq'));
    expect(lastPost('groq')?.body).toMatchObject({ stream_options: { include_usage: true } });
    expect(usages(events)).toEqual([{ type: 'usage', promptTokens: 3, completionTokens: 3 }]);
  });
});

describe('DeepSeek', () => {
  it('reads reasoning_content as reasoning (not the answer) and its cache-hit tokens', async () => {
    const events = await collect(worker('deepseek', 'thinker'));
    expect(answer(events)).toBe('The answer is 4.');
    expect(answer(events)).not.toContain('Two plus two');
    expect(reasoning(events)).toBe(THINKER.reasoning?.text);
    expect(usages(events)).toEqual([
      {
        type: 'usage',
        promptTokens: 3,
        completionTokens: 12,
        reasoningTokens: 8,
        cachedPromptTokens: 1,
      },
    ]);
  });

  it('a reasoning model that only thinks (cut by max tokens) is an empty answer that says so', async () => {
    at('deepseek').setModel({
      id: 'only-thinks',
      behaviour: { kind: 'fixed', text: '' },
      reasoning: { text: 'hmm' },
    });
    const error = await failure(collect(worker('deepseek', 'only-thinks')));
    expect(error.kind).toBe('empty');
    expect(error.message).toMatch(/only reasoned and wrote no answer text/);
  });
});

describe("DeepSeek's reasoner (successive user or assistant messages are a 400)", () => {
  // A follow-up's second step as the executor assembles it (src/executor/context.ts): the earlier turn,
  // then the question, the step it sees (task, answer) and its own task: the question and the seen task
  // are two user turns in a row, as are the question and the task of a step that sees nothing.
  const followUp: PartsMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is 2+2?' },
    { role: 'assistant', content: 'Four.' },
    { role: 'user', content: 'And 3+3?' },
    { role: 'user', content: 'Add the numbers.' },
    { role: 'assistant', content: 'Six.' },
    { role: 'user', content: 'Check the sum.' },
  ];

  it('is sent one user turn for the question and the task, and answers', async () => {
    const events = await collect(worker('deepseek', 'deepseek-reasoner'), followUp);
    expect(answer(events)).toBe('The answer is 4.');
    const body = lastPost('deepseek')?.body as { messages: { role: string; content: string }[] } | undefined;
    const sent = body?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[3]?.content).toBe('And 3+3?\n\nAdd the numbers.');
  });

  it('a step that sees nothing: the question and its task as one turn', async () => {
    const firstStep: PartsMessage[] = [
      { role: 'user', content: 'What is 2+2?' },
      { role: 'user', content: 'Answer the question.' },
    ];
    const events = await collect(worker('deepseek', 'deepseek-reasoner'), firstStep);
    expect(answer(events)).toBe('The answer is 4.');
    expect(lastPost('deepseek')?.body).toMatchObject({
      messages: [{ role: 'user', content: 'What is 2+2?\n\nAnswer the question.' }],
    });
  });
});
