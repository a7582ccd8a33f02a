import { describe, expect, it } from 'vitest';
import { redactKeyLike } from '../../../src/providers/errors.ts';
import { findKeyShapes, KEY_REMOVED, removeKeyShapes } from '../../../src/providers/key-shapes.ts';

// Made-up keys in each provider's documented format (key-shapes.ts cites each): none is a real key.
const keys = {
  anthropic: `sk-ant-api03-${'Ab3_'.repeat(23)}AA`,
  openrouter: `sk-or-v1-${'0123456789abcdef'.repeat(4)}`,
  openaiProject: `sk-proj-${'Zx9-Yw8_'.repeat(10)}`,
  openaiLegacy: `sk-${'T3BlbkFJ'.repeat(6)}`,
  google: `AIza${'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'}`,
  groq: `gsk_${'aB3dE6gH9j'.repeat(5)}xy`,
  xai: `xai-${'Qw3rTy7uI0'.repeat(8)}`,
  mistral: 'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0dF',
};

describe('key-shaped text', () => {
  it("finds each provider's documented key format, and names the provider", () => {
    const question = `Why does this fail? ${Object.values(keys).join(' and ')}.`;
    const found = findKeyShapes(question);
    expect(found.map((k) => k.provider)).toEqual([
      'Anthropic',
      'OpenRouter',
      'OpenAI or DeepSeek',
      'OpenAI or DeepSeek',
      'Google',
      'Groq',
      'xAI',
      'Mistral',
    ]);
    expect(found.map((k) => k.text)).toEqual(Object.values(keys));
    for (const key of found) expect(question.slice(key.index, key.index + key.text.length)).toBe(key.text);
  });

  it('leaves ordinary text alone: words, hex hashes, short prefixes, a path', () => {
    const text = [
      'sk-learn is a library; task-oriented, sk-8 is short',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b and 9e107d9d372bb6826bd81d3542a419d6',
      'AIzaSmall',
      'internationalization_and_localization_framework',
      '/usr/share/doc/abcdefghijklmnopqrstuvwxyz012345',
    ].join('\n');
    expect(findKeyShapes(text)).toEqual([]);
    expect(removeKeyShapes(text)).toBe(text);
  });

  it('replaces each key with the marker, keeping the text around it', () => {
    expect(removeKeyShapes(`use ${keys.groq}, then ${keys.anthropic}.`)).toBe(
      `use ${KEY_REMOVED}, then ${KEY_REMOVED}.`,
    );
  });

  it('scrubs the same shapes from error bodies', () => {
    expect(redactKeyLike(`Incorrect API key provided: ${keys.openrouter}`)).toBe(
      'Incorrect API key provided: [redacted]',
    );
  });
});
