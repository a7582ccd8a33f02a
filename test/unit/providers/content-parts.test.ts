/**
 * Images and attached files' text in each dialect's own form: OpenAI's `image_url` data URLs (Gemini's
 * OpenAI-compatible endpoint and Mistral take the same), Anthropic's `image` blocks with a base64 source.
 * The bodies are checked as pure functions, then sent by the real transports to the test provider, which
 * reads the images as the providers do and refuses them where they do.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicRequestBody,
  createAnthropicTransport,
} from '../../../src/providers/anthropic-transport.ts';
import { dialectOf } from '../../../src/providers/dialects.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { chatBody } from '../../../src/providers/openai-wire.ts';
import type { BatonRequestInit, ChatTransport } from '../../../src/providers/transport.ts';
import { attachmentBytes, type PartsMessage } from '../../../src/shared/chat.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { writePng } from '../../fixtures/png-writer.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import type { DialectMode } from '../../provider/dialects/index.ts';
import { IMAGE_MODELS, startProvider, type TestProvider } from '../../provider/server.ts';

const PNG = writePng(64, 48);
const PNG_BASE64 = Buffer.from(PNG).toString('base64');
const SHA = createHash('sha256').update(PNG).digest('hex').slice(0, 16);
const CSV = '<file name="sales.csv" type="csv">\nregion,units\nnorth,120\n</file>\n';

const withImage: PartsMessage[] = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: CSV, attachment: 'csv-hash' },
      { type: 'text', text: '<file name="chart.png" type="image" width="64" height="48"/>\n' },
      { type: 'image', mediaType: 'image/png', data: PNG_BASE64, attachment: 'png-hash' },
      { type: 'text', text: 'What does the chart show?' },
    ],
  },
];

describe('the request body', () => {
  it('OpenAI form: a user turn with an image is a list of parts, the image a data URL', () => {
    const body = chatBody('gpt-5', withImage, dialectOf('openai'));
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: CSV },
          { type: 'text', text: '<file name="chart.png" type="image" width="64" height="48"/>\n' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          { type: 'text', text: 'What does the chart show?' },
        ],
      },
    ]);
    // Gemini's OpenAI-compatible endpoint takes the very same form.
    expect(chatBody('gemini-2.5-flash', withImage, dialectOf('gemini')).messages).toEqual(body.messages);
  });

  it('a turn of text parts only (a file, no image) is one string, as every request was before parts', () => {
    const body = chatBody(
      'deepseek-chat',
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: CSV, attachment: 'h' },
            { type: 'text', text: 'Sum it.' },
          ],
        },
      ],
      dialectOf('deepseek'),
    );
    expect(body.messages).toEqual([{ role: 'user', content: `${CSV}Sum it.` }]);
  });

  it('Anthropic form: image blocks with a base64 source; turns of one role joined, blocks kept in order', () => {
    const body = anthropicRequestBody('claude-haiku-4-5', [
      ...withImage,
      { role: 'user', content: 'And the trend?' },
      { role: 'assistant', content: 'Up.' },
    ]);
    expect(body.system).toBe('Be brief.');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: CSV },
          { type: 'text', text: '<file name="chart.png" type="image" width="64" height="48"/>\n' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
          { type: 'text', text: 'What does the chart show?' },
          { type: 'text', text: 'And the trend?' },
        ],
      },
      { role: 'assistant', content: 'Up.' },
    ]);
    // Without images the joined turn stays one string.
    expect(
      anthropicRequestBody('claude-haiku-4-5', [
        { role: 'user', content: [{ type: 'text', text: 'a', attachment: 'h' }] },
        { role: 'user', content: 'b' },
      ]).messages,
    ).toEqual([{ role: 'user', content: 'a\n\nb' }]);
  });

  it('counts the attachment bytes as they go in the body: the image base64, the file text in UTF-8', () => {
    expect(attachmentBytes(withImage)).toBe(PNG_BASE64.length + Buffer.byteLength(CSV));
    expect(attachmentBytes([{ role: 'user', content: 'no files here' }])).toBe(0);
  });
});

const providers = new Map<DialectMode | 'anthropic', TestProvider>();
beforeAll(async () => {
  for (const mode of ['openai', 'gemini', 'mistral', 'deepseek'] as const)
    providers.set(mode, await startProvider({ dialect: mode, models: [...IMAGE_MODELS] }));
  providers.set('anthropic', await startProvider({ models: [...IMAGE_MODELS] }));
});
afterAll(async () => {
  await Promise.all([...providers.values()].map((p) => p.close()));
});

function at(mode: DialectMode | 'anthropic'): TestProvider {
  const provider = providers.get(mode);
  if (!provider) throw new Error(`no ${mode} provider`);
  return provider;
}

function worker(mode: DialectMode | 'anthropic', model: string, vision = true): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Vision worker',
    providerId: mode,
    baseURL: at(mode).baseURL,
    model,
    maxConcurrency: 4,
    vision,
  });
}

/** Remembers the EgressContext of each request, as egress would read it. */
function recording(contexts: BatonRequestInit['baton'][]): typeof fetch {
  return (input, init) => {
    contexts.push((init as BatonRequestInit).baton);
    return fetch(input, init);
  };
}

function transportFor(
  mode: DialectMode | 'anthropic',
  contexts: BatonRequestInit['baton'][] = [],
): ChatTransport {
  return mode === 'anthropic'
    ? createAnthropicTransport({ fetch: recording(contexts) })
    : createOpenAITransport({ fetch: recording(contexts) });
}

async function ask(
  mode: DialectMode | 'anthropic',
  spec: WorkerSpec,
  contexts?: BatonRequestInit['baton'][],
) {
  let text = '';
  for await (const event of transportFor(mode, contexts).stream(spec, {
    messages: withImage,
    signal: new AbortController().signal,
    runId: 'run-img',
    stepIndex: 1,
  })) {
    if (event.type === 'delta') text += event.text;
  }
  return text;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected the request to fail');
}

const lastPost = (mode: DialectMode | 'anthropic') =>
  at(mode)
    .requests.filter((r) => r.method === 'POST')
    .at(-1);

describe('sent to the test provider, each dialect in its own form', () => {
  for (const mode of ['openai', 'gemini', 'mistral', 'anthropic'] as const) {
    it(`${mode}: the image arrives whole (format, size, bytes, hash), with the request's attachment bytes declared`, async () => {
      const contexts: BatonRequestInit['baton'][] = [];
      expect(await ask(mode, worker(mode, 'images'), contexts)).toBe(
        `1 image: png 64x48 ${PNG.length} bytes sha256:${SHA}`,
      );
      expect(contexts.at(-1)?.attachmentBytes).toBe(PNG_BASE64.length + Buffer.byteLength(CSV));
      const sent = JSON.stringify(lastPost(mode)?.body);
      expect(sent).toContain(
        mode === 'anthropic' ? '"media_type":"image/png"' : '"url":"data:image/png;base64,',
      );
    });
  }

  it('a request without attachments declares none', async () => {
    const contexts: BatonRequestInit['baton'][] = [];
    const stream = transportFor('openai', contexts).stream(worker('openai', 'echo'), {
      messages: [{ role: 'user', content: 'plain' }],
      signal: new AbortController().signal,
      runId: 'r',
      stepIndex: 0,
    });
    for await (const _ of stream) {
      // drain
    }
    expect(contexts.at(-1)).not.toHaveProperty('attachmentBytes');
  });
});

describe('refusals of an image', () => {
  it('a worker not marked as taking images is refused before anything is sent', async () => {
    const before = at('openai').requests.length;
    const error = await failure(ask('openai', worker('openai', 'images', false)));
    expect(error.kind).toBe('bad-request');
    expect(error.message).toContain('Vision worker takes no images');
    expect(at('openai').requests.length).toBe(before);
  });

  it("OpenAI: a text-only model answers 400 'image_url is only supported by certain models'", async () => {
    const error = await failure(ask('openai', worker('openai', 'text-only')));
    expect(error.kind).toBe('bad-request');
    expect(error.status).toBe(400);
    expect(error.message).toContain('Invalid content type. image_url is only supported by certain models.');
  });

  it("Gemini's endpoint says the same in its own error shape (a JSON array), read as such", async () => {
    const error = await failure(ask('gemini', worker('gemini', 'text-only')));
    expect(error.status).toBe(400);
    expect(error.message).toContain('image_url is only supported by certain models');
  });

  it('DeepSeek refuses any image part: its models read text only', async () => {
    const error = await failure(ask('deepseek', worker('deepseek', 'images')));
    expect(error.status).toBe(400);
    expect(error.message).toContain('unknown variant `image_url`, expected `text`');
  });

  it('Anthropic: a model declared text-only answers 400 invalid_request_error naming the block', async () => {
    const error = await failure(ask('anthropic', worker('anthropic', 'text-only')));
    expect(error.status).toBe(400);
    expect(error.message).toContain(
      'messages.0.content.2.image.source: this model does not take image input',
    );
  });
});
