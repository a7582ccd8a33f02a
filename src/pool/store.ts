/**
 * The user's pool of workers, persisted in IndexedDB ('baton-pool'), in the user's order. The conductor
 * (`self`) and the on-device model (`local`) are built in and never stored.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { CATALOG, type ProviderPreset, presetById } from '../providers/catalog.ts';
import { LOCAL_WORKER, RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export const POOL_DB = 'baton-pool';
export const RESERVED_IDS: readonly string[] = [SELF_WORKER, LOCAL_WORKER, RUN_WORKER];
/** Plans name workers by id, so ids are short and plain: a letter or digit, then letters, digits, `-`, `_`. */
export const WORKER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
export const MAX_CONCURRENCY = 16;

interface StoredWorker extends WorkerSpec {
  /** Position in the user's order. */
  order: number;
}

interface PoolDB extends DBSchema {
  workers: { key: string; value: StoredWorker };
}

/** Why an id cannot be used, in words for the user; undefined when it can. */
export function workerIdProblem(id: string): string | undefined {
  if (RESERVED_IDS.includes(id.toLowerCase())) {
    if (id.toLowerCase() === SELF_WORKER) return '"self" is reserved for the conductor itself.';
    if (id.toLowerCase() === RUN_WORKER)
      return '"run" is reserved for the code sandbox (it runs code on this device).';
    return '"local" is reserved for the on-device model.';
  }
  if (!WORKER_ID_PATTERN.test(id)) {
    return 'Use 1 to 32 letters, digits, "-" or "_", starting with a letter or digit.';
  }
  return undefined;
}

/** Every problem with a worker, in words for the user; empty when it can be saved. */
export function workerProblems(spec: WorkerSpec): string[] {
  const problems: string[] = [];
  const idProblem = workerIdProblem(spec.id);
  if (idProblem) problems.push(idProblem);
  if (!spec.label.trim()) problems.push('Give the worker a label.');
  if (spec.strengths.includes('\n')) problems.push('Strengths must fit on one line.');
  const preset = presetById(spec.providerId);
  if (!preset) problems.push(`Unknown provider "${spec.providerId}".`);
  let url: URL | undefined;
  try {
    url = new URL(spec.baseURL);
  } catch {
    problems.push('The base URL is not a valid URL.');
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push('The base URL must be http(s).');
  if (url && (url.username || url.password))
    problems.push('The base URL must not contain a user name or password.');
  if (url && preset && !preset.baseURLEditable && url.origin !== new URL(preset.baseURL).origin) {
    problems.push(`${preset.name} lives at ${new URL(preset.baseURL).origin}.`);
  }
  if (!spec.model.trim()) problems.push('Choose a model.');
  if (
    !Number.isInteger(spec.maxConcurrency) ||
    spec.maxConcurrency < 1 ||
    spec.maxConcurrency > MAX_CONCURRENCY
  ) {
    problems.push(`Concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}.`);
  }
  if (spec.price) {
    const { inputPerM, outputPerM, cachedInputPerM = 0 } = spec.price;
    const rates = [inputPerM, outputPerM, cachedInputPerM];
    if (!rates.every((rate) => Number.isFinite(rate) && rate >= 0)) {
      problems.push('Prices must be zero or more (dollars per million tokens).');
    }
  }
  return problems;
}

export class PoolError extends Error {
  override name = 'PoolError';
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

export interface PoolStore {
  /** In the user's order. */
  list(): Promise<WorkerSpec[]>;
  get(id: string): Promise<WorkerSpec | undefined>;
  /** Creates or replaces a worker (a new one goes last). Throws PoolError with the problems. */
  save(spec: WorkerSpec): Promise<void>;
  /** Renames a worker (plans written earlier keep the old id). */
  rename(oldId: string, newId: string): Promise<void>;
  remove(id: string): Promise<boolean>;
  /** Puts the listed ids first, in this order; ids not listed keep their relative order after them. */
  reorder(ids: readonly string[]): Promise<void>;
  /** Replaces the whole pool. */
  replaceAll(specs: readonly WorkerSpec[]): Promise<void>;
  subscribe(listener: () => void): () => void;
  close(): void;
}

function strip(stored: StoredWorker): WorkerSpec {
  const { order: _order, ...spec } = stored;
  return spec;
}

export async function openPoolStore(name = POOL_DB): Promise<PoolStore> {
  const db: IDBPDatabase<PoolDB> = await openDB<PoolDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('workers', { keyPath: 'id' });
    },
  });
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const sorted = async () => (await db.getAll('workers')).sort((a, b) => a.order - b.order);
  const check = (spec: WorkerSpec) => {
    const problems = workerProblems(spec);
    if (problems.length) throw new PoolError(problems);
  };

  return {
    async list() {
      return (await sorted()).map(strip);
    },
    async get(id) {
      const stored = await db.get('workers', id);
      return stored && strip(stored);
    },
    async save(spec) {
      check(spec);
      const tx = db.transaction('workers', 'readwrite');
      const existing = await tx.store.get(spec.id);
      let order = existing?.order;
      if (order === undefined) {
        const cursor = await tx.store.openCursor();
        let max = -1;
        for (let c = cursor; c; c = await c.continue()) max = Math.max(max, c.value.order);
        order = max + 1;
      }
      await tx.store.put({ ...spec, order });
      await tx.done;
      changed();
    },
    async rename(oldId, newId) {
      const problem = workerIdProblem(newId);
      if (problem) throw new PoolError([problem]);
      const tx = db.transaction('workers', 'readwrite');
      const existing = await tx.store.get(oldId);
      if (!existing) throw new PoolError([`No worker "${oldId}".`]);
      if (oldId !== newId && (await tx.store.get(newId))) throw new PoolError([`"${newId}" is taken.`]);
      await tx.store.delete(oldId);
      await tx.store.put({ ...existing, id: newId });
      await tx.done;
      changed();
    },
    async remove(id) {
      const tx = db.transaction('workers', 'readwrite');
      const existing = await tx.store.getKey(id);
      if (existing !== undefined) await tx.store.delete(id);
      await tx.done;
      if (existing !== undefined) changed();
      return existing !== undefined;
    },
    async reorder(ids) {
      const tx = db.transaction('workers', 'readwrite');
      const all = (await tx.store.getAll()).sort((a, b) => a.order - b.order);
      const rank = new Map(ids.map((id, i) => [id, i]));
      const ordered = [
        ...all.filter((w) => rank.has(w.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!),
        ...all.filter((w) => !rank.has(w.id)),
      ];
      await Promise.all(ordered.map((w, order) => tx.store.put({ ...w, order })));
      await tx.done;
      changed();
    },
    async replaceAll(specs) {
      for (const spec of specs) check(spec);
      const ids = specs.map((s) => s.id);
      if (new Set(ids).size !== ids.length) throw new PoolError(['Two workers have the same id.']);
      const tx = db.transaction('workers', 'readwrite');
      await tx.store.clear();
      await Promise.all(specs.map((spec, order) => tx.store.put({ ...spec, order })));
      await tx.done;
      changed();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      db.close();
    },
  };
}

/** A worker for a catalog model, with the preset's price as an editable estimate. */
export function workerFromPreset(preset: ProviderPreset, modelId: string, id: string): WorkerSpec {
  const model = preset.models.find((m) => m.id === modelId);
  return {
    id,
    label: model?.label ?? modelId,
    strengths: model?.strengths ?? '',
    providerId: preset.id,
    baseURL: preset.baseURL,
    model: modelId,
    maxConcurrency: preset.kind === 'local' ? 1 : 4,
    ...(model ? { price: { ...model.price }, costTier: model.costTier } : {}),
    ...(model?.webSearch ? { webSearch: true } : {}),
    ...(model?.vision ? { vision: true } : {}),
    enabled: true,
  };
}

/**
 * A suggested pool for the providers the user has keys for (or runs locally): each provider's first
 * catalog model, ids w1, w2, ... in the order given. Nothing is saved.
 */
export function suggestPool(
  providerIds: readonly string[],
  catalog: readonly ProviderPreset[] = CATALOG,
): WorkerSpec[] {
  const specs: WorkerSpec[] = [];
  for (const providerId of providerIds) {
    const preset = catalog.find((p) => p.id === providerId);
    const first = preset?.models[0];
    if (!preset || !first || !preset.baseURL) continue;
    specs.push(workerFromPreset(preset, first.id, `w${specs.length + 1}`));
  }
  return specs;
}
