import { describe, expect, it } from 'vitest';
import { withArticle } from '../../../src/app/indefinite-article.ts';
import { CATALOG } from '../../../src/providers/catalog.ts';

describe('withArticle', () => {
  it.each([
    ['OpenAI', 'an OpenAI'],
    ['Anthropic', 'an Anthropic'],
    ['OpenRouter', 'an OpenRouter'],
    ['Ollama', 'an Ollama'],
    ['LM Studio', 'an LM Studio'],
    ['xAI', 'an xAI'],
    ['Groq', 'a Groq'],
    ['Google Gemini', 'a Google Gemini'],
    ['Mistral', 'a Mistral'],
    ['DeepSeek', 'a DeepSeek'],
    ['Together', 'a Together'],
    ['vLLM', 'a vLLM'],
    ['llama.cpp server', 'a llama.cpp server'],
    ['Custom', 'a Custom'],
    ['Unified API', 'a Unified API'],
    ['object', 'an object'],
  ])('%s → %s', (name, expected) => {
    expect(withArticle(name)).toBe(expected);
  });

  it('gives every catalog provider an article', () => {
    for (const preset of CATALOG) expect(withArticle(preset.name)).toMatch(/^an? \S/);
  });
});
