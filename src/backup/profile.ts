/**
 * What of this browser's Baton a backup holds, as records ("units") with keys that say their kind and
 * id: `run:<id>` (a run with its steps and its History row, written together as the run store does),
 * `thread:<id>`, `file:<hash>` (an attached file, stored once), `outcome:<runId>` (what Baton learned),
 * `worker:<id>` (the pool), `bench:<id>` (a bench run with its results), `settings:local` (Baton's
 * settings in localStorage), and `key:<provider>@<origin>` (a provider key, only when the user asks).
 * The databases are read and written as their own stores lay them out, so a record restored is the
 * record backed up.
 */
import { openDB } from 'idb';
import { BACKUP_S3, BACKUP_WEBDAV } from '../egress/backup-endpoints.ts';
import { BENCH_DB_NAME, BenchStore } from '../evaluation/bench-store.ts';
import { ATTACHMENTS_STORE, deleteUnreferenced } from '../records/attachment-store.ts';
import { LEARNING_DB, openOutcomeStore } from '../records/outcome-store.ts';
import { openPoolStore, POOL_DB } from '../records/pool-store.ts';
import { openRunsDatabase } from '../records/run-store.ts';
import { RUNS_DB_NAME, type RunsDB } from '../records/runs-db.ts';
import {
  type AnyDB,
  idOf,
  kindOf,
  type ProfileDatabases,
  type RunUnit,
  writeToDatabases,
} from '../shared/profile-write.ts';
import { openToolStore, TOOLS_DB } from '../tools/store.ts';
import type { Vault } from '../vault/vault.ts';

export interface ProfileOptions {
  runs?: string;
  pool?: string;
  learning?: string;
  bench?: string;
  tools?: string;
  /** localStorage, or none (settings are then left out). */
  storage?: Pick<Storage, 'length' | 'key' | 'getItem' | 'setItem'>;
  /** Provider keys go in only with this, and only while the vault is unlocked. */
  vault?: Pick<Vault, 'listKeys' | 'keyFor' | 'saveKey'>;
  includeKeys?: boolean;
}

/** One record of this browser: its key, its own time of change when it has one, and how to read it. */
export interface LocalUnit {
  key: string;
  /** Its `updatedAt` (or a mark's time); undefined for records without one (a worker, the settings). */
  time?: number;
  /** Immutable once written (a file by its content hash): a key seen before is the same record. */
  immutable?: true;
  read(): Promise<unknown>;
}

/** Kinds whose deletion by the user travels as a tombstone. Keys and settings are never deleted remotely. */
export const DELETABLE = ['run', 'thread', 'file', 'outcome', 'worker', 'tool', 'bench'] as const;

export { kindOf };

/** Settings that are this browser's own, not the user's choices: never carried to another browser. */
const LOCAL_ONLY = /^baton\.(backup|onboarded)/;

/** Restores write in this order: files before the runs that use them, threads after their runs. */
const ORDER = ['settings', 'key', 'worker', 'tool', 'file', 'run', 'thread', 'outcome', 'bench'];

export function restoreOrder(a: string, b: string): number {
  return ORDER.indexOf(kindOf(a)) - ORDER.indexOf(kindOf(b));
}

export type { ProfileDatabases };

export interface Profile {
  /** Absent on profiles that are not this browser's databases (a test's own). */
  readonly databases?: ProfileDatabases;
  list(): Promise<LocalUnit[]>;
  write(key: string, body: unknown): Promise<void>;
  remove(key: string): Promise<void>;
  close(): void;
}

/** Opens every database a backup reads (creating them as their stores would, in a fresh browser). */
export async function openProfile(options: ProfileOptions = {}): Promise<Profile> {
  const names: ProfileDatabases = {
    runs: options.runs ?? RUNS_DB_NAME,
    pool: options.pool ?? POOL_DB,
    learning: options.learning ?? LEARNING_DB,
    bench: options.bench ?? BENCH_DB_NAME,
    tools: options.tools ?? TOOLS_DB,
  };
  const runs = await openRunsDatabase(names.runs);
  // Each store opens (and so creates or upgrades) its own database; then it is read by its layout.
  (await openPoolStore(names.pool)).close();
  (await openOutcomeStore(names.learning)).close();
  (await BenchStore.open(names.bench)).close();
  (await openToolStore(names.tools)).close();
  const [pool, learning, bench, tools] = (await Promise.all([
    openDB(names.pool),
    openDB(names.learning),
    openDB(names.bench),
    openDB(names.tools),
  ])) as [AnyDB, AnyDB, AnyDB, AnyDB];
  const raw = runs as unknown as AnyDB;
  const dbs = { runs: raw, pool, learning, bench, tools };
  const { storage, vault } = options;

  /** Every record of one store as units, read at once (the small stores). */
  async function rows(db: AnyDB, store: string, kind: string, time?: (v: Record<string, unknown>) => number) {
    const tx = db.transaction(store);
    const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    await tx.done;
    return values.map((value, i): LocalUnit => {
      const at = time?.(value as Record<string, unknown>);
      return {
        key: `${kind}:${String(keys[i])}`,
        ...(at !== undefined ? { time: at } : {}),
        read: async () => value,
      };
    });
  }

  /** A store's keys with their `updatedAt` from its index: no record is read until a unit is. */
  async function timed(db: AnyDB, store: string): Promise<[string, number][]> {
    const out: [string, number][] = [];
    const tx = db.transaction(store);
    for (let c = await tx.store.index('updatedAt').openKeyCursor(); c; c = await c.continue()) {
      out.push([String(c.primaryKey), c.key as number]);
    }
    await tx.done;
    return out;
  }

  async function readRun(id: string): Promise<RunUnit> {
    const tx = runs.transaction(['runs', 'steps', 'summaries']);
    const [run, steps, summary] = await Promise.all([
      tx.objectStore('runs').get(id),
      tx.objectStore('steps').index('runId').getAll(id),
      tx.objectStore('summaries').get(id),
    ]);
    await tx.done;
    return { run: run as RunUnit['run'], steps, ...(summary ? { summary } : {}) };
  }

  async function readBench(id: string) {
    const tx = bench.transaction(['runs', 'results']);
    const [run, results] = await Promise.all([
      tx.objectStore('runs').get(id),
      tx.objectStore('results').index('benchId').getAll(id),
    ]);
    await tx.done;
    return { run, results };
  }

  function settings(): LocalUnit[] {
    if (!storage) return [];
    const values: Record<string, string> = {};
    for (let i = 0; i < storage.length; i++) {
      const name = storage.key(i);
      if (!name?.startsWith('baton.') || LOCAL_ONLY.test(name)) continue;
      const value = storage.getItem(name);
      if (value !== null) values[name] = value;
    }
    if (Object.keys(values).length === 0) return [];
    const sorted = Object.fromEntries(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
    return [{ key: 'settings:local', read: async () => sorted }];
  }

  async function keys(): Promise<LocalUnit[]> {
    if (!options.includeKeys || !vault) return [];
    const saved = (await vault.listKeys()).filter(
      (k) => k.providerId !== BACKUP_S3 && k.providerId !== BACKUP_WEBDAV,
    );
    return saved.map((info) => ({
      key: `key:${info.providerId}@${info.origin}`,
      read: async () => ({
        providerId: info.providerId,
        origin: info.origin,
        key: await vault.keyFor(info.providerId, info.origin),
        ...(info.label ? { label: info.label } : {}),
      }),
    }));
  }

  return {
    databases: names,
    async list() {
      const [runTimes, threadTimes, fileIds, benchTimes, workers, servers, outcomes, keyUnits] =
        await Promise.all([
          timed(raw, 'runs'),
          timed(raw, 'threads'),
          runs.getAllKeys(ATTACHMENTS_STORE),
          timed(bench, 'runs'),
          rows(pool, 'workers', 'worker'),
          rows(tools, 'servers', 'tool'),
          rows(learning, 'outcomes', 'outcome', (v) => Number(v.at ?? 0)),
          keys(),
        ]);
      return [
        ...runTimes.map(([id, time]): LocalUnit => ({ key: `run:${id}`, time, read: () => readRun(id) })),
        ...threadTimes.map(
          ([id, time]): LocalUnit => ({ key: `thread:${id}`, time, read: () => runs.get('threads', id) }),
        ),
        ...fileIds.map(
          (id): LocalUnit => ({
            key: `file:${id}`,
            immutable: true,
            read: () => runs.get(ATTACHMENTS_STORE, id),
          }),
        ),
        ...benchTimes.map(
          ([id, time]): LocalUnit => ({ key: `bench:${id}`, time, read: () => readBench(id) }),
        ),
        ...workers,
        ...servers,
        ...outcomes,
        ...settings(),
        ...keyUnits,
      ];
    },

    async write(key, body) {
      if (await writeToDatabases(dbs, key, body)) return;
      switch (kindOf(key)) {
        case 'settings':
          for (const [name, value] of Object.entries(body as Record<string, string>))
            storage?.setItem(name, value);
          return;
        case 'key': {
          const saved = body as { providerId: string; origin: string; key?: string; label?: string };
          if (vault && saved.key) await vault.saveKey({ ...saved, key: saved.key });
          return;
        }
      }
    },

    async remove(key) {
      const id = idOf(key);
      switch (kindOf(key)) {
        case 'run': {
          const tx = runs.transaction(['runs', 'steps', 'summaries', ATTACHMENTS_STORE], 'readwrite');
          const run = (await tx.objectStore('runs').get(id)) as RunUnit['run'] | undefined;
          const steps = tx.objectStore('steps');
          for (const old of await steps.index('runId').getAllKeys(id)) await steps.delete(old);
          await tx.objectStore('runs').delete(id);
          await tx.objectStore('summaries').delete(id);
          await deleteUnreferenced(tx as never, run?.attachmentIds ?? []);
          await tx.done;
          return;
        }
        case 'thread':
          await runs.delete('threads', id);
          return;
        case 'file': {
          // A file goes only with the last run that uses it, as the run store deletes them.
          const tx = runs.transaction(['runs', ATTACHMENTS_STORE], 'readwrite');
          await deleteUnreferenced(tx as never, [id]);
          await tx.done;
          return;
        }
        case 'worker':
          await pool.delete('workers', id);
          return;
        case 'tool':
          await tools.delete('servers', id);
          return;
        case 'outcome':
          await learning.delete('outcomes', id);
          return;
        case 'bench': {
          const tx = bench.transaction(['runs', 'results'], 'readwrite');
          await tx.objectStore('runs').delete(id);
          const results = tx.objectStore('results');
          for (const k of await results.index('benchId').getAllKeys(id)) await results.delete(k);
          await tx.done;
          return;
        }
      }
    },

    close() {
      runs.close();
      pool.close();
      learning.close();
      bench.close();
      tools.close();
    },
  };
}

export type { RunsDB };
