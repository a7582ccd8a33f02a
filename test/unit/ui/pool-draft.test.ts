import { describe, expect, it } from 'vitest';
import type { WorkerSpec } from '../../../src/pool/types.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import {
  draftFor,
  draftFromWorker,
  hostOf,
  nextWorkerId,
  priceUnknown,
  withModel,
  workerFromDraft,
} from '../../../src/ui/pool-draft.ts';

const openai = presetById('openai')!;
const [first, second] = openai.models;

describe('the worker form', () => {
  it('starts a Custom worker with an unknown price, not $0, so its cost reads as unknown', () => {
    const draft = withModel(draftFor('custom'), 'my-model');
    expect(priceUnknown(draft)).toBe(true);
    const worker = workerFromDraft({ ...draft, baseURL: 'https://llm.example.com/v1' }, 'w1');
    expect((worker as WorkerSpec).price).toBeUndefined();
  });

  it("keeps DeepSeek's cache-hit rate with its preset price, and drops it for a price the user typed", () => {
    const draft = { ...draftFor('deepseek'), baseURL: 'https://api.deepseek.com/v1' };
    expect((workerFromDraft(draft, 'w1') as WorkerSpec).price).toEqual({
      inputPerM: 0.28,
      outputPerM: 0.42,
      cachedInputPerM: 0.028,
    });
    const { pricedBy: _typed, ...own } = { ...draft, inputPerM: '0.3' };
    expect((workerFromDraft(own, 'w1') as WorkerSpec).price).toEqual({ inputPerM: 0.3, outputPerM: 0.42 });
  });

  it("does not keep a preset model's price for a model id that is not in the preset", () => {
    const draft = withModel(draftFor('openai'), 'my-fine-tune');
    expect(draft.model).toBe('my-fine-tune');
    expect(priceUnknown(draft)).toBe(true);
    expect(draft.costTier).toBe('');
    // The preset's label for the other model would name the wrong model.
    expect(draft.label).toBe('OpenAI my-fine-tune');
    const worker = workerFromDraft(draft, 'w1');
    expect(typeof worker).toBe('object');
    expect((worker as WorkerSpec).price).toBeUndefined();
    expect((worker as WorkerSpec).costTier).toBeUndefined();
  });

  it("takes a preset model's price and tier, and keeps a price the user typed", () => {
    expect(second).toBeDefined();
    const picked = withModel(draftFor('openai'), second!.id);
    expect(picked.inputPerM).toBe(String(second!.price.inputPerM));
    expect(picked.costTier).toBe(second!.costTier);
    const { pricedBy: _from, ...typed } = { ...picked, inputPerM: '7', outputPerM: '9' };
    const renamed = withModel(typed, 'another-id');
    expect([renamed.inputPerM, renamed.outputPerM]).toEqual(['7', '9']);
    expect((workerFromDraft(renamed, 'w2') as WorkerSpec).price).toEqual({ inputPerM: 7, outputPerM: 9 });
  });

  it('follows the model id typed one key at a time, and keeps a label the user wrote', () => {
    let draft = draftFor('openai');
    for (const end of [1, 2, 3, 'my-fine-tune'.length])
      draft = withModel(draft, 'my-fine-tune'.slice(0, end));
    expect(draft.label).toBe('OpenAI my-fine-tune');
    expect(priceUnknown(draft)).toBe(true);
    const own = withModel({ ...draft, label: 'Mine', autoLabel: false }, first!.id);
    expect(own.label).toBe('Mine');
    expect(own.inputPerM).toBe(String(first!.price.inputPerM));
    // A custom endpoint has no preset models: the model id is the label until the user writes one.
    expect(withModel(draftFor('custom'), 'echo').label).toBe('echo');
  });

  it('refuses half a price, with a reason', () => {
    const draft = { ...draftFor('openai'), inputPerM: '1', outputPerM: '' };
    expect(workerFromDraft(draft, 'w1')).toMatch(/both prices/);
  });

  it('edits a stored worker: every field, keeping its id and enabled state', () => {
    const stored: WorkerSpec = {
      id: 'w3',
      label: 'Old label',
      strengths: 'old',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:8787/v1',
      model: 'echo',
      maxConcurrency: 2,
      price: { inputPerM: 1, outputPerM: 2 },
      enabled: false,
    };
    const draft = {
      ...draftFromWorker(stored),
      label: 'New label',
      model: 'upper',
      baseURL: 'http://127.0.0.1:8788/v1/',
      strengths: 'new',
      costTier: 'high' as const,
    };
    expect(workerFromDraft(draft, stored.id, stored)).toEqual({
      ...stored,
      label: 'New label',
      model: 'upper',
      baseURL: 'http://127.0.0.1:8788/v1',
      strengths: 'new',
      costTier: 'high',
    });
    expect(draftFromWorker({ ...stored, price: undefined }).inputPerM).toBe('');
    expect(
      draftFromWorker({ ...stored, providerId: 'openai', model: first!.id, price: { ...first!.price } })
        .pricedBy,
    ).toBe(first!.id);
  });

  it('shows the host of a base URL, and numbers new workers', () => {
    expect(hostOf('http://127.0.0.1:8787/v1')).toBe('127.0.0.1:8787');
    expect(hostOf('https://api.openai.com/v1')).toBe('api.openai.com');
    expect(hostOf('not a url')).toBe('not a url');
    expect(nextWorkerId(['w1', 'w3'])).toBe('w2');
  });
});
