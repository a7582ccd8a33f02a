import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Plan } from '../plan/index.ts';
import type { WorkerSpec } from '../pool/types.ts';
import type { RunStatus, RunTotals, StepStatus } from './types.ts';

export const RUNS_DB_NAME = 'baton-runs';
const RUNS_DB_VERSION = 1;

/** One run as persisted. The pool is a snapshot of the workers' public settings (never a key). */
export interface RunRecord {
  id: string;
  question: string;
  /** 'conductor', 'router', a baseline name... */
  mode: string;
  pool: WorkerSpec[];
  /** The plan as far as it is known (steps added by `self` steps are in `steps`, not here). */
  plan: Plan;
  /** False while the plan is still being streamed in. */
  planComplete: boolean;
  includeQuestion: boolean;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  totals: RunTotals;
  answer?: string;
  error?: string;
}

export interface StepRecord extends StepStatus {
  runId: string;
}

export interface RunsDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { updatedAt: number; status: RunStatus } };
  steps: { key: [string, number]; value: StepRecord; indexes: { runId: string } };
}

/** What the executor needs to persist a run, and what the history view reads. */
export interface RunStore {
  putRun(run: RunRecord): Promise<void>;
  putStep(step: StepRecord): Promise<void>;
  getRun(id: string): Promise<{ run: RunRecord; steps: StepRecord[] } | undefined>;
  /** Newest first (by updatedAt). */
  listRuns(options?: { limit?: number }): Promise<RunRecord[]>;
  deleteRun(id: string): Promise<void>;
  /** Runs still marked `running`: left behind by a reload or a crash. Newest first. */
  findUnfinished(): Promise<RunRecord[]>;
  /** Gives up on a run: it and every step not done are marked cancelled. */
  discardRun(id: string, reason?: string): Promise<void>;
  close(): void;
}

/** The fields of a worker that may be stored: anything else (a key someone attached) is dropped. */
export function snapshotPool(pool: readonly WorkerSpec[]): WorkerSpec[] {
  return pool.map((w) => {
    const copy: WorkerSpec = {
      id: w.id,
      label: w.label,
      strengths: w.strengths,
      providerId: w.providerId,
      baseURL: w.baseURL,
      model: w.model,
      maxConcurrency: w.maxConcurrency,
      enabled: w.enabled,
    };
    if (w.systemPrompt !== undefined) copy.systemPrompt = w.systemPrompt;
    if (w.price !== undefined) copy.price = { inputPerM: w.price.inputPerM, outputPerM: w.price.outputPerM };
    if (w.costTier !== undefined) copy.costTier = w.costTier;
    return copy;
  });
}

class IdbRunStore implements RunStore {
  constructor(private readonly db: IDBPDatabase<RunsDB>) {}

  async putRun(run: RunRecord): Promise<void> {
    await this.db.put('runs', run);
  }

  async putStep(step: StepRecord): Promise<void> {
    await this.db.put('steps', step);
  }

  async getRun(id: string) {
    const tx = this.db.transaction(['runs', 'steps']);
    const [run, steps] = await Promise.all([
      tx.objectStore('runs').get(id),
      tx.objectStore('steps').index('runId').getAll(id),
    ]);
    await tx.done;
    if (!run) return undefined;
    return { run, steps: steps.sort((a, b) => a.index - b.index) };
  }

  async listRuns(options: { limit?: number } = {}): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    let cursor = await this.db.transaction('runs').store.index('updatedAt').openCursor(null, 'prev');
    while (cursor && out.length < (options.limit ?? Infinity)) {
      out.push(cursor.value);
      cursor = await cursor.continue();
    }
    return out;
  }

  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'steps'], 'readwrite');
    const steps = tx.objectStore('steps');
    const keys = await steps.index('runId').getAllKeys(id);
    await Promise.all([tx.objectStore('runs').delete(id), ...keys.map((key) => steps.delete(key))]);
    await tx.done;
  }

  async findUnfinished(): Promise<RunRecord[]> {
    const runs = await this.db.getAllFromIndex('runs', 'status', 'running');
    return runs.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async discardRun(id: string, reason = 'Discarded after a reload.'): Promise<void> {
    const now = Date.now();
    const tx = this.db.transaction(['runs', 'steps'], 'readwrite');
    const runs = tx.objectStore('runs');
    const steps = tx.objectStore('steps');
    const run = await runs.get(id);
    if (run) await runs.put({ ...run, status: 'cancelled', error: reason, updatedAt: now });
    for (const step of await steps.index('runId').getAll(id)) {
      if (step.state === 'done' || step.state === 'failed' || step.state === 'cancelled') continue;
      await steps.put({
        ...step,
        state: 'cancelled',
        error: reason,
        timings: { ...step.timings, endedAt: now },
      });
    }
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}

/** Opens (creating if needed) the runs database. */
export async function openRunStore(name = RUNS_DB_NAME): Promise<RunStore> {
  const db = await openDB<RunsDB>(name, RUNS_DB_VERSION, {
    upgrade(database) {
      const runs = database.createObjectStore('runs', { keyPath: 'id' });
      runs.createIndex('updatedAt', 'updatedAt');
      runs.createIndex('status', 'status');
      const steps = database.createObjectStore('steps', { keyPath: ['runId', 'index'] });
      steps.createIndex('runId', 'runId');
    },
  });
  return new IdbRunStore(db);
}
