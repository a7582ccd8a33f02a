import { describe, expect, it } from 'vitest';
import {
  suggestPool,
  workerFromPreset,
  workerIdProblem,
  workerProblems,
} from '../../../src/pool/worker-rules.ts';
import { CATALOG, presetById } from '../../../src/providers/catalog.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';

function spec(id: string, over: Partial<WorkerSpec> = {}): WorkerSpec {
  return {
    ...workerFromPreset(presetById('openai')!, 'gpt-5-mini', id),
    ...over,
  };
}

describe('worker ids', () => {
  it('reserves self and local, in any case, and keeps ids plain', () => {
    expect(workerIdProblem('self')).toMatch(/conductor/);
    expect(workerIdProblem('Local')).toMatch(/on-device/);
    expect(workerIdProblem('w1')).toBeUndefined();
    expect(workerIdProblem('gpt-5_mini')).toBeUndefined();
    for (const bad of ['', '-x', 'a b', 'a'.repeat(33), 'é', 'a"b'])
      expect(workerIdProblem(bad)).toBeTruthy();
  });

  it('checks the rest of a worker: provider, URL pinned to a cloud origin, concurrency, prices', () => {
    expect(workerProblems(spec('w1'))).toEqual([]);
    expect(workerProblems(spec('w1', { baseURL: 'https://evil.example/v1' })).join(' ')).toMatch(
      /api\.openai\.com/,
    );
    expect(workerProblems(spec('w1', { providerId: 'nope' })).join(' ')).toMatch(/Unknown provider/);
    expect(workerProblems(spec('w1', { maxConcurrency: 0 })).join(' ')).toMatch(/Concurrency/);
    expect(workerProblems(spec('w1', { price: { inputPerM: -1, outputPerM: 1 } })).join(' ')).toMatch(
      /Prices/,
    );
    expect(workerProblems(spec('w1', { baseURL: 'https://u:p@api.openai.com/v1' })).join(' ')).toMatch(
      /password/,
    );
    // Local servers may live anywhere.
    const ollama = workerFromPreset(presetById('ollama')!, 'llama3.2', 'o1');
    expect(workerProblems({ ...ollama, baseURL: 'http://192.168.1.20:11434/v1' })).toEqual([]);
  });
});

describe('suggested pool', () => {
  it("takes each provider's first catalog model, with prices, and skips unknown or empty presets", () => {
    const pool = suggestPool(['anthropic', 'nope', 'custom', 'gemini']);
    expect(pool.map((w) => [w.id, w.providerId, w.model])).toEqual([
      ['w1', 'anthropic', 'claude-sonnet-4-5'],
      ['w2', 'gemini', 'gemini-2.5-flash'],
    ]);
    for (const w of pool) expect(workerProblems(w)).toEqual([]);
    expect(pool[0]!.price).toEqual(presetById('anthropic')!.models[0]!.price);
    // The suggestion copies the price: editing it does not change the catalog.
    pool[0]!.price!.inputPerM = 99;
    expect(presetById('anthropic')!.models[0]!.price.inputPerM).not.toBe(99);
    expect(suggestPool(CATALOG.map((p) => p.id)).length).toBe(CATALOG.length - 1);
  });
});

describe('workerFromPreset and image input', () => {
  it("copies the catalog's image mark, and leaves it off a text-only model", async () => {
    const { presetById } = await import('../../../src/providers/catalog.ts');
    expect(workerFromPreset(presetById('anthropic')!, 'claude-haiku-4-5', 'w1').vision).toBe(true);
    expect(workerFromPreset(presetById('deepseek')!, 'deepseek-chat', 'w2').vision).toBeUndefined();
  });
});
