import { describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/egress/discovery.ts';
import { errorMessageOf, errorMessageOfText } from '../../../src/providers/error-body.ts';

// Error bodies as each provider sends them (sources in src/providers/error-body.ts).
const BODIES = {
  openai: {
    error: {
      message: 'Incorrect API key provided.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    },
  },
  anthropic: {
    type: 'error',
    error: { type: 'overloaded_error', message: 'Overloaded' },
  },
  gemini: [
    {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
      },
    },
  ],
  mistral422: {
    object: 'error',
    message: {
      detail: [
        {
          type: 'extra_forbidden',
          loc: ['body', 'stream_options', 'include_usage'],
          msg: 'Extra inputs are not permitted',
          input: true,
          url: 'https://errors.pydantic.dev/2.10/v/extra_forbidden',
        },
      ],
    },
    type: 'invalid_request_error',
    param: null,
    code: null,
  },
  mistral401: { message: 'Unauthorized', request_id: 'a580d263fb1521778782b22104efb415' },
  fastapi404: { detail: 'Not Found' },
  errorString: { error: 'model not found' },
};

describe('errorMessageOfText: the message of every provider error shape', () => {
  it("OpenAI's error.message", () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.openai))).toBe('Incorrect API key provided.');
  });
  it("Anthropic's {type: 'error', error: {message}}", () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.anthropic))).toBe('Overloaded');
  });
  it("Gemini's JSON array [{error: {message}}]", () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.gemini))).toBe(
      'API key not valid. Please pass a valid API key.',
    );
  });
  it("Mistral's 422 {object: 'error', message: {detail: [...]}} names the field", () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.mistral422))).toBe(
      'stream_options.include_usage: Extra inputs are not permitted',
    );
  });
  it("Mistral's 401 {message} and FastAPI's {detail}", () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.mistral401))).toBe('Unauthorized');
    expect(errorMessageOfText(JSON.stringify(BODIES.fastapi404))).toBe('Not Found');
  });
  it('{error: "text"}, plain text, and an empty body', () => {
    expect(errorMessageOfText(JSON.stringify(BODIES.errorString))).toBe('model not found');
    expect(errorMessageOfText('upstream connect error\n')).toBe('upstream connect error');
    expect(errorMessageOfText('')).toBe('');
  });
  it('JSON with no message at all keeps the text rather than nothing', () => {
    expect(errorMessageOfText('{"status":"bad"}')).toBe('{"status":"bad"}');
  });
  it('scrubs anything key-shaped and keeps it short', () => {
    const body = {
      error: { message: `Incorrect API key provided: sk-abcdefghijklmnop1234. ${'x'.repeat(400)}` },
    };
    const message = errorMessageOfText(JSON.stringify(body));
    expect(message).not.toContain('sk-abcdefghijklmnop1234');
    expect(message.length).toBeLessThanOrEqual(301);
  });
  it('errorMessageOf reads an error object the SDK already parsed (a mid-stream error)', () => {
    expect(errorMessageOf({ code: 502, message: 'Provider returned error' })).toBe('Provider returned error');
    expect(errorMessageOf(undefined)).toBeUndefined();
  });
});

describe('errorDetail (model discovery) reads the same shapes', () => {
  for (const [name, body] of Object.entries(BODIES)) {
    it(name, async () => {
      const detail = await errorDetail(new Response(JSON.stringify(body), { status: 400 }));
      expect(detail).toBe(errorMessageOfText(JSON.stringify(body)));
      expect(detail).not.toBe('');
      expect(detail).not.toMatch(/^[[{]/);
    });
  }
});
