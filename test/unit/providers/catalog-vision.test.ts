import { describe, expect, it } from 'vitest';
import { CATALOG, presetById, presetTakesImages, VISION_MODELS } from '../../../src/providers/catalog.ts';

const vision = (providerId: string, modelId: string) =>
  presetById(providerId)?.models.find((m) => m.id === modelId)?.vision;

describe('which preset models take images', () => {
  it('is said of every preset model', () => {
    for (const preset of CATALOG)
      for (const model of preset.models) expect(typeof model.vision).toBe('boolean');
  });

  it("follows each provider's documentation", () => {
    expect(vision('openai', 'gpt-5')).toBe(true);
    expect(vision('openai', 'gpt-4.1-mini')).toBe(true);
    expect(vision('anthropic', 'claude-haiku-4-5')).toBe(true);
    expect(vision('gemini', 'gemini-2.5-flash')).toBe(true);
    expect(vision('openrouter', 'anthropic/claude-sonnet-4.5')).toBe(true);
    expect(vision('xai', 'grok-4')).toBe(true);
    expect(vision('xai', 'grok-3-mini')).toBe(false);
    expect(vision('deepseek', 'deepseek-chat')).toBe(false);
    expect(vision('openrouter', 'deepseek/deepseek-chat')).toBe(false);
    expect(vision('groq', 'llama-3.3-70b-versatile')).toBe(false);
    expect(vision('mistral', 'codestral-latest')).toBe(false);
    // A local server's model is not known here: the user says so per worker.
    expect(vision('ollama', 'llama3.2')).toBe(false);
  });

  it('names only models that are in the catalog (a mistyped id would leave a vision model text-only)', () => {
    const listed = Object.entries(VISION_MODELS).flatMap(([provider, ids]) =>
      ids.map((id) => `${provider}/${id}`),
    );
    const inCatalog = CATALOG.flatMap((p) => p.models.filter((m) => m.vision).map((m) => `${p.id}/${m.id}`));
    expect(inCatalog.sort()).toEqual(listed.sort());
    expect(presetTakesImages('openai', 'gpt-5-mini')).toBe(true);
    expect(presetTakesImages('openai', 'gpt-3.5-turbo')).toBe(false);
    expect(presetTakesImages('nowhere', 'gpt-5')).toBe(false);
  });
});
