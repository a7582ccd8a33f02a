/**
 * The test provider's images, over raw HTTP: each refusal has the status and body its provider documents
 * (test/provider/images.ts cites them), and usage counts an image by that provider's rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePng } from '../../fixtures/png-writer.ts';
import { anthropicAreaTokens, openaiTileTokens, seeImage } from '../../provider/images.ts';
import { IMAGE_MODELS, startProvider, type TestProvider } from '../../provider/server.ts';

const PNG = Buffer.from(writePng(600, 400)).toString('base64');
const JPEG_HEADER = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
]).toString('base64');

/** The fields these tests read of an answer or an error (OpenAI's and Anthropic's shapes). */
interface Answer {
  choices: { message: { content: string } }[];
  usage: { prompt_tokens: number; input_tokens: number };
  error: { code: string | null; message: string };
  content: { text: string }[];
}

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ models: [...IMAGE_MODELS] });
});
afterAll(() => provider.close());

async function openai(model: string, url: string) {
  const response = await fetch(`${provider.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is it?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function anthropic(model: string, source: Record<string, unknown>) {
  const response = await fetch(`${provider.baseURL}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model,
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', ...source } },
            { type: 'text', text: 'What is it?' },
          ],
        },
      ],
    }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

describe('OpenAI-style images', () => {
  it("answers the `images` model with what it got, and counts the image's tiles in prompt_tokens", async () => {
    const { status, body } = await openai('images', `data:image/png;base64,${PNG}`);
    expect(status).toBe(200);
    expect(body.choices[0]?.message.content).toMatch(/^1 image: png 600x400 \d+ bytes sha256:[0-9a-f]{16}$/);
    // "What is it?" is 3 tokens; 600 × 400 is one 512-px tile wide by one high after scaling: 85 + 170 × 2.
    expect(openaiTileTokens({ width: 600, height: 400 })).toBe(85 + 170 * 2);
    expect(body.usage.prompt_tokens).toBe(3 + 85 + 170 * 2);
  });

  it("refuses an image for a text-only model with OpenAI's 400, naming the part", async () => {
    const { status, body } = await openai('text-only', `data:image/png;base64,${PNG}`);
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        message: 'Invalid content type. image_url is only supported by certain models.',
        type: 'invalid_request_error',
        code: null,
        param: 'messages.[0].content.[1].type',
      },
    });
  });

  it('refuses bytes that are not the type declared, or no image at all, as invalid_image_format', async () => {
    for (const url of [
      `data:image/png;base64,${JPEG_HEADER}`,
      'data:image/png;base64,aGVsbG8=',
      `data:image/bmp;base64,${PNG}`,
    ]) {
      const { status, body } = await openai('images', url);
      expect(status).toBe(400);
      expect(body.error.code).toBe('invalid_image_format');
      expect(body.error.message).toContain("['png', 'jpeg', 'gif', 'webp']");
    }
  });
});

describe('Anthropic-style images', () => {
  it('answers with what it got and counts width × height / 750 in input_tokens', async () => {
    const { status, body } = await anthropic('images', { media_type: 'image/png', data: PNG });
    expect(status).toBe(200);
    expect(body.content[0]?.text).toMatch(/^1 image: png 600x400/);
    expect(body.usage.input_tokens).toBe(3 + anthropicAreaTokens({ width: 600, height: 400 }));
  });

  it('refuses as Anthropic does: each a 400 invalid_request_error whose message names the block', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { media_type: 'image/bmp', data: PNG },
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
      ],
      [
        { media_type: 'image/jpeg', data: PNG },
        'messages.0.content.0.image.source.base64.data: Image does not match the provided media type image/jpeg',
      ],
      [{ media_type: 'image/png', data: 'aGVsbG8=' }, 'Could not process image'],
      [
        { media_type: 'image/png', data: Buffer.from(writePng(8001, 1, () => [0, 0, 0])).toString('base64') },
        'messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels',
      ],
    ];
    for (const [source, message] of cases) {
      const { status, body } = await anthropic('images', source);
      expect(status).toBe(400);
      expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
    }
  });

  // Its own test, with a minute: 5 MB sent, parsed and decoded over loopback, client and server in this
  // one thread, is a fraction of a second alone and most of the refusals' time under load; beside other
  // test files on two shared cores (load average 20) the refusals took up to 16 s of the 20 s they shared.
  it('refuses base64 over 5 MB as Anthropic does, naming both sizes', async () => {
    const { status, body } = await anthropic('images', {
      media_type: 'image/png',
      data: 'A'.repeat(5 * 1024 * 1024 + 4),
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes',
      },
    });
  }, 60_000);
});

describe('seeImage', () => {
  it('reads the format from the bytes, not the declared type', () => {
    expect(seeImage(PNG, 'image/jpeg')).toMatchObject({
      declared: 'image/jpeg',
      format: 'png',
      width: 600,
      height: 400,
    });
    expect(seeImage('aGVsbG8=', 'image/png').format).toBeUndefined();
  });
});
