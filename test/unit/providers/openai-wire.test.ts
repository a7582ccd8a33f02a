import { describe, expect, it } from 'vitest';
import { DIALECTS, dialectOf } from '../../../src/providers/dialects.ts';
import { chatBody, deltaParts, usageOf } from '../../../src/providers/openai-wire.ts';
import type { ChatMessage } from '../../../src/shared/chat.ts';

// Each dialect's request builder and stream reader against chunks shaped as each provider's docs show them
// (URLs in src/providers/dialects.ts and src/providers/openai-wire.ts). Values are the docs' examples.

const messages: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hi' },
];

describe('the dialect table, as the providers document it', () => {
  it('DeepSeek refuses json_schema response formats; Mistral rejects unknown fields; OpenRouter reports cost', () => {
    expect(dialectOf('deepseek').responseFormat).toBe(false);
    expect(dialectOf('mistral')).toMatchObject({ strictFields: true, streamUsage: 'never' });
    expect(dialectOf('openrouter')).toMatchObject({ reportsCost: true, streamUsage: 'never' });
    expect(dialectOf('gemini').modelsShape).toBe('gemini');
    expect(dialectOf('some-custom-endpoint').id).toBe('openai-compatible');
  });
});

describe('chatBody: the request each dialect gets', () => {
  it.each(['openai', 'gemini', 'groq', 'deepseek', 'together', 'xai', 'ollama', 'custom'])(
    '%s asks for usage with stream_options',
    (id) => {
      expect(chatBody('m', messages, dialectOf(id))).toEqual({
        model: 'm',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
    },
  );

  it.each(['mistral', 'openrouter'])(
    '%s gets no stream_options (a 422 at Mistral, deprecated at OpenRouter)',
    (id) => {
      expect(chatBody('m', messages, dialectOf(id))).toEqual({ model: 'm', messages, stream: true });
    },
  );

  it('sends only role and content of each message, whatever else a message object holds', () => {
    const withExtra = [{ role: 'assistant', content: 'x', reasoning_content: 'secret thoughts' }] as never;
    const body = chatBody('m', withExtra, DIALECTS.mistral!);
    expect(body.messages).toEqual([{ role: 'assistant', content: 'x' }]);
    expect(JSON.stringify(body)).not.toContain('secret thoughts');
  });
});

describe('usageOf: usage wherever each provider puts it', () => {
  it('OpenAI: the include_usage chunk with cached and reasoning details', () => {
    const chunk = {
      choices: [],
      usage: {
        prompt_tokens: 1117,
        completion_tokens: 46,
        total_tokens: 1163,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    };
    expect(usageOf(chunk, dialectOf('openai'))).toEqual({
      type: 'usage',
      promptTokens: 1117,
      completionTokens: 46,
      cachedPromptTokens: 1024,
    });
  });

  it('OpenAI with include_usage: usage null on content chunks is no usage', () => {
    expect(
      usageOf({ choices: [{ delta: { content: 'x' } }], usage: null }, dialectOf('openai')),
    ).toBeUndefined();
  });

  it('OpenRouter: cost, cached and reasoning tokens in the last message', () => {
    const chunk = {
      choices: [],
      usage: {
        prompt_tokens: 194,
        completion_tokens: 2,
        total_tokens: 196,
        cost: 0.000023,
        is_byok: false,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    };
    expect(usageOf(chunk, dialectOf('openrouter'))).toEqual({
      type: 'usage',
      promptTokens: 194,
      completionTokens: 2,
      cost: 0.000023,
    });
  });

  it('a cost field from a dialect that does not report cost is not taken for a price', () => {
    const chunk = { usage: { prompt_tokens: 1, completion_tokens: 1, cost: 5 } };
    expect(usageOf(chunk, dialectOf('custom'))).not.toHaveProperty('cost');
  });

  it('DeepSeek: prompt_cache_hit_tokens and the reasoner’s reasoning_tokens', () => {
    const chunk = {
      choices: [],
      usage: {
        completion_tokens: 1045,
        prompt_tokens: 13,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 13,
        total_tokens: 1058,
        completion_tokens_details: { reasoning_tokens: 976 },
      },
    };
    expect(usageOf(chunk, dialectOf('deepseek'))).toEqual({
      type: 'usage',
      promptTokens: 13,
      completionTokens: 1045,
      reasoningTokens: 976,
    });
    const hit = { usage: { prompt_tokens: 13, completion_tokens: 1, prompt_cache_hit_tokens: 8 } };
    expect(usageOf(hit, dialectOf('deepseek'))).toMatchObject({ cachedPromptTokens: 8 });
  });

  it('DeepSeek: the prompt as cache hits plus misses when prompt_tokens is missing', () => {
    const chunk = {
      choices: [],
      usage: { prompt_cache_hit_tokens: 30, prompt_cache_miss_tokens: 12, completion_tokens: 5 },
    };
    expect(usageOf(chunk, dialectOf('deepseek'))).toEqual({
      type: 'usage',
      promptTokens: 42,
      completionTokens: 5,
      cachedPromptTokens: 30,
    });
  });

  it('Groq: x_groq.usage on the final chunk', () => {
    const chunk = {
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      x_groq: { id: 'req_01j', usage: { prompt_tokens: 24, completion_tokens: 377, total_tokens: 401 } },
    };
    expect(usageOf(chunk, dialectOf('groq'))).toEqual({
      type: 'usage',
      promptTokens: 24,
      completionTokens: 377,
    });
  });

  it('Mistral and xAI: usage on the finish chunk itself', () => {
    const chunk = {
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, total_tokens: 25, completion_tokens: 15 },
    };
    expect(usageOf(chunk, dialectOf('mistral'))).toEqual({
      type: 'usage',
      promptTokens: 10,
      completionTokens: 15,
    });
    expect(usageOf({ choices: [] }, dialectOf('xai'))).toBeUndefined();
  });
});

describe('deltaParts: answer and reasoning apart', () => {
  it('DeepSeek reasoner: reasoning_content, then content', () => {
    expect(deltaParts({ reasoning_content: 'Okay,', content: null }, dialectOf('deepseek'))).toEqual({
      text: '',
      reasoning: 'Okay,',
    });
    expect(deltaParts({ content: 'Hello', reasoning_content: null }, dialectOf('deepseek'))).toEqual({
      text: 'Hello',
      reasoning: '',
    });
  });

  it('OpenRouter: reasoning, taken once when reasoning_content repeats it', () => {
    expect(
      deltaParts(
        { content: '', reasoning: 'Let me think', reasoning_content: 'Let me think' },
        dialectOf('openrouter'),
      ),
    ).toEqual({ text: '', reasoning: 'Let me think' });
  });

  it("Mistral's Magistral: thinking parts of a content array are reasoning, text parts the answer", () => {
    const delta = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: [{ type: 'text', text: 'Okay, the user' }] },
        { type: 'text', text: 'Paris.' },
      ],
    };
    expect(deltaParts(delta, dialectOf('mistral'))).toEqual({ text: 'Paris.', reasoning: 'Okay, the user' });
  });

  it('a role-only or empty delta adds nothing', () => {
    expect(deltaParts({ role: 'assistant' }, dialectOf('openai'))).toEqual({ text: '', reasoning: '' });
    expect(deltaParts(undefined, dialectOf('openai'))).toEqual({ text: '', reasoning: '' });
  });
});
