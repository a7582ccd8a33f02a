/**
 * The user's pool of workers, persisted in IndexedDB ('baton-pool'), in the user's order. The conductor
 * (`self`) and the on-device model (`local`) are built in and never stored.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { PoolError, workerIdProblem, workerProblems } from '../pool/worker-rules.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export const POOL_DB = 'baton-pool';

interface StoredWorker extends WorkerSpec {
  /** Position in the user's order. */
  order: number;
}

interface PoolDB extends DBSchema {
  workers: { key: string; value: StoredWorker };
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
