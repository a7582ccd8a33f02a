import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/learning/outcome.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';

function outcome(runId: string, at: number, good = true): Outcome {
  return {
    runId,
    question: `Question of ${runId}`,
    strategy: 'conductor',
    workerIds: ['w1'],
    good,
    source: 'user',
    costUsd: 0,
    latencyMs: 10,
    at,
  };
}

describe('the outcome store (IndexedDB)', () => {
  it('keeps one outcome per run, the latest mark replacing the earlier one, listed oldest first', async () => {
    const store = await openOutcomeStore('outcomes-replace');
    await store.put(outcome('b', 20));
    await store.put(outcome('a', 10));
    await store.put(outcome('b', 30, false));
    expect((await store.list()).map((o) => [o.runId, o.good])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(await store.get('b')).toEqual(outcome('b', 30, false));
    store.close();

    // Kept across openings.
    const again = await openOutcomeStore('outcomes-replace');
    expect((await again.list()).map((o) => o.runId)).toEqual(['a', 'b']);
    again.close();
  });

  it('removes one, clears all, and tells listeners after every change', async () => {
    const store = await openOutcomeStore('outcomes-clear');
    let changes = 0;
    const unsubscribe = store.subscribe(() => changes++);
    await store.put(outcome('a', 1));
    await store.put(outcome('b', 2));
    await store.remove('a');
    expect((await store.list()).map((o) => o.runId)).toEqual(['b']);
    await store.clear();
    expect(await store.list()).toEqual([]);
    expect(changes).toBe(4);
    unsubscribe();
    await store.put(outcome('c', 3));
    expect(changes).toBe(4);
    store.close();
  });

  it('says the storage is full when a mark cannot be written for lack of space', async () => {
    const store = await openOutcomeStore('outcomes-full');
    const full = { ...outcome('a', 1) };
    // A getter that throws what the browser throws when its quota is used up, while the value is cloned.
    Object.defineProperty(full, 'question', {
      enumerable: true,
      get() {
        throw new DOMException('Quota exceeded', 'QuotaExceededError');
      },
    });
    await expect(store.put(full)).rejects.toThrow(/storage for Baton is full/);
    expect(await store.list()).toEqual([]);
    store.close();
  });
});
