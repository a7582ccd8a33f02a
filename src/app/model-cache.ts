/**
 * The conductor model in this browser's cache, as Settings shows it: whether the loaded model's files are
 * cached (and how big), and deleting them. A local server keeps its model itself, so it has no cache here.
 */
import { signal } from '@preact/signals';
import type { ConductorBridge } from '../conductor/bridge.ts';
import type { CacheStatus } from '../shared/conductor-api.ts';
import type { ModelRef } from '../shared/model.ts';

export function createModelCache(services: {
  bridge(): Promise<ConductorBridge>;
  unload(): Promise<void>;
  refreshStorage(): Promise<unknown>;
}) {
  /** The last model asked about and its status; undefined until asked, or when the thread could not say. */
  const status = signal<{ model: ModelRef; cache: CacheStatus } | undefined>(undefined);

  /** Asks the conductor thread whether `model`'s files are in the cache. */
  async function refresh(model: ModelRef): Promise<void> {
    try {
      status.value = { model, cache: await (await services.bridge()).cacheStatus(model) };
    } catch {
      status.value = undefined;
    }
  }

  /** Deletes `model`'s files from the cache (unloading it first when it is loaded); says what happened. */
  async function remove(model: ModelRef, loaded: boolean): Promise<string> {
    const bridge = await services.bridge();
    if (loaded) await services.unload();
    const ok = await bridge.deleteCache(model).catch(() => false);
    status.value = { model, cache: { cached: false } };
    void services.refreshStorage();
    return ok ? 'The model was deleted from the cache.' : 'Nothing was deleted.';
  }

  /** The cache status of `model`, if the last answer was about it. */
  function of(model: ModelRef | undefined): CacheStatus | undefined {
    const now = status.value;
    return model && now && JSON.stringify(now.model) === JSON.stringify(model) ? now.cache : undefined;
  }

  return { refresh, remove, of };
}

export type ModelCache = ReturnType<typeof createModelCache>;
