/**
 * A record of a backup written into this browser's databases, as their own stores lay them out (see
 * profile.ts for the keys and kinds). Apart from the profile because the restore's thread writes with it
 * too, and a worker has neither localStorage nor the page's vault: this module needs only IndexedDB.
 */
import { type IDBPDatabase, openDB } from 'idb';
import { ATTACHMENTS_STORE } from './runs-layout.ts';

/** The databases a profile reads and writes, by name: what another thread opens to write into them too. */
export interface ProfileDatabases {
  runs: string;
  pool: string;
  learning: string;
  bench: string;
  tools: string;
}

export interface RecordWriter {
  write(key: string, body: unknown): Promise<void>;
}

export type AnyDB = IDBPDatabase<unknown>;

export interface OpenDatabases {
  runs: AnyDB;
  pool: AnyDB;
  learning: AnyDB;
  bench: AnyDB;
  tools: AnyDB;
}

export interface RunUnit {
  run: { id: string; attachmentIds?: string[] };
  steps: unknown[];
  summary?: unknown;
}

export function kindOf(key: string): string {
  return key.slice(0, key.indexOf(':'));
}

export function idOf(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/**
 * Writes a record of a kind kept in IndexedDB; false for the kinds that are not (settings, keys), which
 * the caller writes where they live.
 */
export async function writeToDatabases(dbs: OpenDatabases, key: string, body: unknown): Promise<boolean> {
  const id = idOf(key);
  switch (kindOf(key)) {
    case 'run': {
      const unit = body as RunUnit;
      const tx = dbs.runs.transaction(['runs', 'steps', 'summaries'], 'readwrite');
      const steps = tx.objectStore('steps');
      for (const old of await steps.index('runId').getAllKeys(id)) await steps.delete(old);
      await tx.objectStore('runs').put(unit.run);
      for (const step of unit.steps) await steps.put(step);
      if (unit.summary) await tx.objectStore('summaries').put(unit.summary);
      await tx.done;
      return true;
    }
    case 'thread':
      await dbs.runs.put('threads', body);
      return true;
    case 'file':
      await dbs.runs.put(ATTACHMENTS_STORE, body);
      return true;
    case 'worker':
      await dbs.pool.put('workers', body);
      return true;
    case 'tool':
      await dbs.tools.put('servers', body);
      return true;
    case 'outcome':
      await dbs.learning.put('outcomes', body);
      return true;
    case 'bench': {
      const unit = body as { run: unknown; results: unknown[] };
      const tx = dbs.bench.transaction(['runs', 'results'], 'readwrite');
      await tx.objectStore('runs').put(unit.run);
      for (const result of unit.results) await tx.objectStore('results').put(result);
      await tx.done;
      return true;
    }
    default:
      return false;
  }
}

/**
 * A writer into databases a profile already opened (so created and upgraded) elsewhere: the restore's
 * thread opens them at their current version.
 */
export async function openDatabaseWriter(names: ProfileDatabases): Promise<RecordWriter & { close(): void }> {
  const [runs, pool, learning, bench, tools] = await Promise.all(
    [names.runs, names.pool, names.learning, names.bench, names.tools].map((name) => openDB(name)),
  );
  const dbs = { runs, pool, learning, bench, tools } as OpenDatabases;
  return {
    async write(key, body) {
      if (!(await writeToDatabases(dbs, key, body))) {
        throw new Error(`a ${kindOf(key)} record is not written in this thread`);
      }
    },
    close() {
      for (const db of Object.values(dbs)) db.close();
    },
  };
}
