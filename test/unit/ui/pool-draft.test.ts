import { describe, expect, it } from 'vitest';
import { presetById } from '../../../src/providers/catalog.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import {
  draftFor,
  draftFromWorker,
  hostOf,
  nextWorkerId,
  priceUnknown,
  sameWorkerIn,
  sameWorkerText,
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

  it('a searching preset model makes a searching worker; another model does not keep its mark', () => {
    const searching = withModel(draftFor('openai'), 'gpt-4o-mini-search-preview');
    expect(searching.webSearch).toBe(true);
    expect((workerFromDraft(searching, 'w1') as WorkerSpec).webSearch).toBe(true);
    // Typed over, one key at a time: the mark was the preset model's.
    const typed = withModel(withModel(searching, 'g'), 'gpt-5');
    expect(typed.webSearch).toBe(false);
    expect(workerFromDraft(typed, 'w1')).not.toHaveProperty('webSearch');
    expect(withModel(searching, first!.id).webSearch).toBe(false);
    expect(draftFor('openai').webSearch).toBe(false);
  });

  it("keeps the user's own tick for a custom model, and drops it where the provider cannot search", () => {
    const custom = { ...withModel(draftFor('custom'), 'sonar'), baseURL: 'http://127.0.0.1:8787/v1' };
    const ticked = withModel({ ...custom, webSearch: true }, 'sonar-pro');
    expect(ticked.webSearch).toBe(true);
    expect((workerFromDraft(ticked, 'w1') as WorkerSpec).webSearch).toBe(true);
    const groq = { ...draftFor('groq'), webSearch: true };
    expect(workerFromDraft(groq, 'w1')).not.toHaveProperty('webSearch');
    // Editing a searching worker keeps it searching, until the box is cleared.
    const stored = workerFromDraft(ticked, 'w4') as WorkerSpec;
    expect(draftFromWorker(stored).webSearch).toBe(true);
    expect(
      workerFromDraft({ ...draftFromWorker(stored), webSearch: false }, 'w4', stored),
    ).not.toHaveProperty('webSearch');
  });

  it('shows the host of a base URL, and numbers new workers', () => {
    expect(hostOf('http://127.0.0.1:8787/v1')).toBe('127.0.0.1:8787');
    expect(hostOf('https://api.openai.com/v1')).toBe('api.openai.com');
    expect(hostOf('not a url')).toBe('not a url');
    expect(nextWorkerId(['w1', 'w3'])).toBe('w2');
  });
});

describe('a worker the pool already has', () => {
  const pool: WorkerSpec[] = [
    {
      id: 'w1',
      label: 'Local echo',
      strengths: '',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:8787/v1',
      model: 'echo',
      maxConcurrency: 2,
      enabled: true,
    },
  ];

  it('is the same model at the same address under the same label, and is named in the refusal', () => {
    const copy = { ...pool[0]!, id: 'w2', baseURL: 'http://127.0.0.1:8787/v1/', strengths: 'other words' };
    expect(sameWorkerIn(copy, pool)?.id).toBe('w1');
    expect(sameWorkerText(pool[0]!)).toBe(
      '“Local echo” is already in the pool with this model at this address. To add another worker for it, give it a label of its own.',
    );
    // Another label, model or address is another worker; editing a worker does not find itself.
    expect(sameWorkerIn({ ...copy, label: 'Local echo 2' }, pool)).toBeUndefined();
    expect(sameWorkerIn({ ...copy, model: 'upper' }, pool)).toBeUndefined();
    expect(sameWorkerIn({ ...copy, baseURL: 'http://127.0.0.1:8788/v1' }, pool)).toBeUndefined();
    expect(sameWorkerIn({ ...pool[0]! }, pool, 'w1')).toBeUndefined();
  });
});

describe("a worker's image input", () => {
  it("comes with a preset model that takes images, goes with it, and is the user's tick for a typed model", () => {
    const deepseek = draftFor('deepseek');
    expect(deepseek.vision).toBe(false);
    const gpt = withModel(draftFor('openai'), 'gpt-5');
    expect(gpt.vision).toBe(true);
    expect((workerFromDraft(gpt, 'w1') as WorkerSpec).vision).toBe(true);
    // Typing another model id drops the preset's mark: it belongs to gpt-5, not to this model.
    const typed = withModel(gpt, 'my-finetune');
    expect(typed.vision).toBe(false);
    const ticked = { ...typed, vision: true };
    expect((workerFromDraft(ticked, 'w1') as WorkerSpec).vision).toBe(true);
    expect(withModel(ticked, 'my-other-finetune').vision).toBe(true);
    // Editing a stored worker keeps its mark; unticking it removes it.
    const stored = workerFromDraft(ticked, 'w1') as WorkerSpec;
    expect(draftFromWorker(stored).vision).toBe(true);
    const unticked = workerFromDraft(
      { ...draftFromWorker(stored), vision: false },
      'w1',
      stored,
    ) as WorkerSpec;
    expect(unticked.vision).toBeUndefined();
  });
});
