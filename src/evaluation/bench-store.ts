import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Attachment } from '../attachments/types.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { BenchItemResult } from './bench-item.ts';
import type { Strategy } from './strategies.ts';
import type { Task } from './taskset.ts';

export const BENCH_DB_NAME = 'baton-bench';

/** A bench run as stored: what was asked (tasks, strategies, pool without keys) and its limits. */
export interface BenchRunRecord {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  tasks: Task[];
  strategies: Strategy[];
  pool: WorkerSpec[];
  /** The document the reading strategies answer from, kept with the bench so it can be resumed. */
  document?: Attachment;
  concurrency: number;
  spendCapUsd?: number;
  state: 'running' | 'paused' | 'cancelled' | 'capped' | 'done';
  stopReason?: string;
}

interface BenchDB extends DBSchema {
  runs: { key: string; value: BenchRunRecord; indexes: { updatedAt: number } };
  results: {
    key: [string, string, string];
    value: BenchItemResult & { benchId: string };
    indexes: { benchId: string };
  };
}

/**
 * A stored result as it reads today. Before unscored items had a status of their own, an answer that could
 * not be scored was stored as `failed` with the reason as its error (a failed run has no answer): it is
 * read as `unscored`, so an old bench's figures leave it out too.
 */
export function fromStored(result: BenchItemResult): BenchItemResult {
  if (result.status !== 'failed' || result.answer === undefined) return result;
  const { error, ...rest } = result;
  return { ...rest, status: 'unscored', correct: false, notScored: error ?? 'it could not be scored here' };
}

/** Bench runs and their results, one record per (task, strategy), written as each item finishes. */
export class BenchStore {
  private constructor(private readonly db: IDBPDatabase<BenchDB>) {}

  static async open(name = BENCH_DB_NAME): Promise<BenchStore> {
    const db = await openDB<BenchDB>(name, 1, {
      upgrade(db) {
        db.createObjectStore('runs', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
        db.createObjectStore('results', { keyPath: ['benchId', 'taskId', 'strategyId'] }).createIndex(
          'benchId',
          'benchId',
        );
      },
    });
    return new BenchStore(db);
  }

  async putRun(run: BenchRunRecord): Promise<void> {
    await this.db.put('runs', { ...run, updatedAt: Date.now() });
  }

  async putResult(benchId: string, result: BenchItemResult): Promise<void> {
    await this.db.put('results', { ...result, benchId });
  }

  /** Newest first. */
  async listRuns(): Promise<BenchRunRecord[]> {
    return (await this.db.getAllFromIndex('runs', 'updatedAt')).reverse();
  }

  async getRun(id: string): Promise<{ run: BenchRunRecord; results: BenchItemResult[] } | undefined> {
    const run = await this.db.get('runs', id);
    if (!run) return undefined;
    const stored = await this.db.getAllFromIndex('results', 'benchId', id);
    return { run, results: stored.map(({ benchId: _benchId, ...result }) => fromStored(result)) };
  }

  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'results'], 'readwrite');
    await tx.objectStore('runs').delete(id);
    const results = tx.objectStore('results');
    for (const key of await results.index('benchId').getAllKeys(id)) await results.delete(key);
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}
