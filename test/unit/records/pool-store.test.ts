import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { PoolError, workerFromPreset } from '../../../src/pool/worker-rules.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { openPoolStore } from '../../../src/records/pool-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';

let n = 0;
const fresh = () => openPoolStore(`pool-test-${n++}`);

function spec(id: string, over: Partial<WorkerSpec> = {}): WorkerSpec {
  return {
    ...workerFromPreset(presetById('openai')!, 'gpt-5-mini', id),
    ...over,
  };
}

describe('pool store', () => {
  it('saves, lists in order, updates in place, reorders, removes, and persists across opens', async () => {
    const name = `pool-test-${n++}`;
    const store = await openPoolStore(name);
    let changes = 0;
    store.subscribe(() => changes++);
    await store.save(spec('a'));
    await store.save(spec('b'));
    await store.save(spec('c'));
    await store.save(spec('a', { label: 'A again' }));
    expect((await store.list()).map((w) => w.id)).toEqual(['a', 'b', 'c']);
    expect((await store.get('a'))?.label).toBe('A again');
    expect(await store.get('a')).not.toHaveProperty('order');
    await store.reorder(['c', 'a']);
    expect((await store.list()).map((w) => w.id)).toEqual(['c', 'a', 'b']);
    expect(await store.remove('a')).toBe(true);
    expect(await store.remove('a')).toBe(false);
    await store.rename('b', 'b2');
    store.close();
    const again = await openPoolStore(name);
    expect((await again.list()).map((w) => w.id)).toEqual(['c', 'b2']);
    expect(changes).toBe(7);
    again.close();
  });

  it('refuses reserved ids and invalid workers with the problems, storing nothing', async () => {
    const store = await fresh();
    await expect(store.save(spec('self'))).rejects.toBeInstanceOf(PoolError);
    await expect(store.save(spec('local'))).rejects.toThrow(/on-device/);
    await expect(store.save(spec('ok', { model: ' ' }))).rejects.toThrow(/model/);
    await store.save(spec('x'));
    await store.save(spec('y'));
    await expect(store.rename('x', 'y')).rejects.toThrow(/taken/);
    await expect(store.rename('x', 'self')).rejects.toThrow(/conductor/);
    await expect(store.replaceAll([spec('d'), spec('d')])).rejects.toThrow(/same id/);
    expect((await store.list()).map((w) => w.id)).toEqual(['x', 'y']);
    store.close();
  });
});
