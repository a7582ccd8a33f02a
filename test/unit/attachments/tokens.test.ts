import { describe, expect, it } from 'vitest';
import { imageTokenRule, imageTokens, openaiPatches } from '../../../src/attachments/tokens.ts';

const size = (width: number, height: number) => ({ width, height });

describe('imageTokenRule', () => {
  it("picks each model's rule from OpenAI's, Anthropic's and Google's documentation", () => {
    expect(imageTokenRule('gpt-4o')).toEqual({ kind: 'openai-tiles', base: 85, perTile: 170 });
    expect(imageTokenRule('gpt-4.1')).toEqual({ kind: 'openai-tiles', base: 85, perTile: 170 });
    expect(imageTokenRule('gpt-5')).toEqual({ kind: 'openai-tiles', base: 70, perTile: 140 });
    expect(imageTokenRule('gpt-4o-mini')).toEqual({ kind: 'openai-tiles', base: 2833, perTile: 5667 });
    expect(imageTokenRule('gpt-5-mini')).toEqual({ kind: 'openai-patches', multiplier: 1.62 });
    expect(imageTokenRule('openai/gpt-5-mini')).toEqual({ kind: 'openai-patches', multiplier: 1.62 });
    expect(imageTokenRule('gpt-4.1-nano')).toEqual({ kind: 'openai-patches', multiplier: 2.46 });
    expect(imageTokenRule('claude-haiku-4-5')).toEqual({ kind: 'anthropic-area' });
    expect(imageTokenRule('anthropic/claude-sonnet-4.5')).toEqual({ kind: 'anthropic-area' });
    expect(imageTokenRule('gemini-2.5-flash')).toEqual({ kind: 'gemini-tiles' });
    expect(imageTokenRule('grok-4')).toEqual({ kind: 'estimate' });
  });
});

describe('imageTokens', () => {
  it("OpenAI's tiles: the docs' examples, 1024 × 1024 → 765 and 2048 × 4096 → 1105 (GPT-4o)", () => {
    const gpt4o = imageTokenRule('gpt-4o');
    expect(imageTokens(size(1024, 1024), gpt4o)).toEqual({ tokens: 765, documented: true });
    expect(imageTokens(size(2048, 4096), gpt4o).tokens).toBe(1105);
    // A small image is not scaled up: one tile.
    expect(imageTokens(size(300, 200), gpt4o).tokens).toBe(85 + 170);
    expect(imageTokens(size(1024, 1024), imageTokenRule('gpt-5')).tokens).toBe(70 + 140 * 4);
  });

  it("OpenAI's patches: the docs' examples, 1024 × 1024 → 1024 and 1800 × 2400 → 1452, times the model's multiplier", () => {
    expect(openaiPatches(size(1024, 1024))).toBe(1024);
    expect(openaiPatches(size(1800, 2400))).toBe(1452);
    expect(openaiPatches(size(4000, 4000))).toBeLessThanOrEqual(1536);
    expect(imageTokens(size(1024, 1024), imageTokenRule('gpt-4.1-mini')).tokens).toBe(Math.ceil(1024 * 1.62));
    expect(imageTokens(size(1800, 2400), imageTokenRule('gpt-5-mini')).tokens).toBe(Math.ceil(1452 * 1.62));
  });

  it("Anthropic's area rule: the docs' table, 1000 × 1000 ≈ 1334 and 1092 × 1092 ≈ 1590; larger images are scaled first", () => {
    const claude = imageTokenRule('claude-sonnet-4-5');
    expect(imageTokens(size(200, 200), claude).tokens).toBe(54);
    expect(imageTokens(size(1000, 1000), claude).tokens).toBe(1334);
    expect(imageTokens(size(1092, 1092), claude).tokens).toBe(1590);
    expect(imageTokens(size(4000, 3000), claude).tokens).toBeLessThanOrEqual(1600);
  });

  it("Gemini's: 258 within 384 × 384, else 258 per 768-px tile", () => {
    const gemini = imageTokenRule('gemini-2.5-pro');
    expect(imageTokens(size(384, 384), gemini).tokens).toBe(258);
    expect(imageTokens(size(1000, 500), gemini).tokens).toBe(258 * 2);
    expect(imageTokens(size(1568, 1045), gemini).tokens).toBe(258 * 3 * 2);
  });

  it('a model with no documented rule gets a stated estimate, marked as such', () => {
    expect(imageTokens(size(1000, 1000), imageTokenRule('grok-4'))).toEqual({
      tokens: 1334,
      documented: false,
    });
  });
});
