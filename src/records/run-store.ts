import { type IDBPDatabase, type IDBPTransaction, openDB, type StoreNames } from 'idb';
import type { Attachment } from '../attachments/types.ts';
import type { Price, WorkerSpec } from '../shared/worker-spec.ts';
// Attached files: stored by content hash beside the runs (attachment-store.ts).
import {
  ATTACHMENTS_STORE,
  addAttachmentStores,
  deleteUnreferenced,
  putAttachments,
  readAttachments,
  storedAttachmentBytes,
} from './attachment-store.ts';
import { check, RunRecordSchema, RunSummarySchema, StepRecordSchema } from './record-schema.ts';
import {
  type AttachmentRef,
  DamagedRunError,
  RUNS_DB_NAME,
  RUNS_DB_VERSION,
  type RunRecord,
  type RunSummary,
  type RunsDB,
  type SkippedRun,
  type StepRecord,
  type SummaryPage,
  type SummaryRow,
  type ThreadLink,
  threadLinkOf,
} from './runs-db.ts';

/**
 * The thread fields of a record that may not pass the schema: what can be read of them, so an unreadable
 * turn keeps its place in its thread (shown there as unreadable) instead of falling out of it.
 */
function rawThreadLink(raw: Record<string, unknown>): ThreadLink {
  const id = String(raw.id);
  const link: ThreadLink = {
    threadId: typeof raw.threadId === 'string' && raw.threadId ? raw.threadId : id,
    turn: typeof raw.turn === 'number' && Number.isInteger(raw.turn) && raw.turn >= 0 ? raw.turn : 0,
  };
  if (typeof raw.parentRunId === 'string' && raw.parentRunId) link.parentRunId = raw.parentRunId;
  return link;
}

/** The summary of a run, or a `problem` row when the record does not pass the schema. */
export function summarize(record: unknown): SummaryRow {
  const checked = check(RunRecordSchema, record);
  if (!checked.ok) {
    const raw = (typeof record === 'object' && record !== null ? record : {}) as Record<string, unknown>;
    return {
      id: String(raw.id),
      updatedAt: typeof raw.updatedAt === 'number' ? raw.updatedAt : 0,
      problem: checked.problem,
      ...rawThreadLink(raw),
    };
  }
  const run = checked.value;
  const summary: RunSummary = {
    ...threadLinkOf(run),
    id: run.id,
    question: run.question,
    mode: run.mode,
    status: run.status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    steps: run.totals.steps,
    cost: run.totals.cost,
  };
  if (run.totals.unpriced) summary.unpriced = true;
  if (run.totals.estimated) {
    summary.estimated = true;
    summary.estimator = run.totals.estimator === 'o200k' ? 'o200k' : 'chars';
  }
  if (run.answer !== undefined) summary.answer = run.answer;
  const finalWorker = run.plan.steps.findLast((step) => step.worker !== 'self')?.worker;
  if (finalWorker !== undefined) summary.finalWorker = finalWorker;
  return summary;
}

function readSummary(
  row: SummaryRow,
): { ok: true; summary: RunSummary } | { ok: false; skipped: SkippedRun } {
  if ('problem' in row) return { ok: false, skipped: { id: String(row.id), problem: String(row.problem) } };
  const checked = check(RunSummarySchema, row);
  return checked.ok
    ? { ok: true, summary: checked.value }
    : { ok: false, skipped: { id: String((row as { id?: unknown }).id), problem: checked.problem } };
}

/** What the executor needs to persist a run, and what the history view reads. */
export interface RunStore {
  putRun(run: RunRecord): Promise<void>;
  putStep(step: StepRecord): Promise<void>;
  /** A run's record (if given) and steps in one transaction: a run's start writes all its queued steps. */
  putRunAndSteps(run: RunRecord | undefined, steps: readonly StepRecord[]): Promise<void>;
  /** Throws `DamagedRunError` when the run or a step of it does not pass the schema. */
  getRun(id: string): Promise<{ run: RunRecord; steps: StepRecord[] } | undefined>;
  /** Newest first (by updatedAt); runs that do not pass the schema are left out. */
  listRuns(options?: { limit?: number }): Promise<RunRecord[]>;
  deleteRun(id: string): Promise<void>;
  /** Runs still marked `running`, left behind by a reload or a crash, that can be read. Newest first. */
  findUnfinished(): Promise<RunRecord[]>;
  /** Gives up on a run: it and every step not done are marked cancelled. */
  discardRun(id: string, reason?: string): Promise<void>;
  close(): void;
}

/** The run store as History reads it: summaries, a page at a time, and what could not be read. */
export interface RunHistoryStore extends RunStore {
  /** One page of summaries, newest first, starting at `from` (a page's `next`). */
  listSummaries(options: { limit: number; from?: { updatedAt: number; id: string } }): Promise<SummaryPage>;
  /** Every readable summary, newest first (what the search index is built from), and every row that is not. */
  allSummaries(): Promise<{ summaries: RunSummary[]; skipped: SkippedRun[] }>;
  /** Runs known to be unreadable (found when their summary was made). */
  listDamaged(): Promise<SkippedRun[]>;
  /** Stores a run's files, each once by its hash (throws when the disk is full: the caller says so). */
  putAttachments(attachments: readonly Attachment[]): Promise<void>;
  /** A stored run's files, under the names it gave them. */
  getAttachments(refs: readonly AttachmentRef[]): Promise<Attachment[]>;
  /** Bytes of every stored file, each once. */
  attachmentBytes(): Promise<number>;
}

/** A price's own fields (nothing else someone attached to it). */
export function priceCopy(price: Price): Price {
  const copy: Price = { inputPerM: price.inputPerM, outputPerM: price.outputPerM };
  if (price.cachedInputPerM !== undefined) copy.cachedInputPerM = price.cachedInputPerM;
  return copy;
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
    if (w.price !== undefined) copy.price = priceCopy(w.price);
    if (w.costTier !== undefined) copy.costTier = w.costTier;
    // A resumed run sends as the first did: images only to the workers that took them, and a search
    // request only to the workers that searched.
    if (w.vision) copy.vision = true;
    if (w.webSearch) copy.webSearch = true;
    return copy;
  });
}

class IdbRunStore implements RunHistoryStore {
  constructor(private readonly db: IDBPDatabase<RunsDB>) {}

  async putRun(run: RunRecord): Promise<void> {
    const tx = this.db.transaction(['runs', 'summaries'], 'readwrite');
    await Promise.all([
      tx.objectStore('runs').put(run),
      tx.objectStore('summaries').put(summarize(run)),
      tx.done,
    ]);
  }

  async putStep(step: StepRecord): Promise<void> {
    await this.db.put('steps', step);
  }

  async putRunAndSteps(run: RunRecord | undefined, steps: readonly StepRecord[]): Promise<void> {
    const tx = this.db.transaction(['runs', 'summaries', 'steps'], 'readwrite');
    await Promise.all([
      ...(run ? [tx.objectStore('runs').put(run), tx.objectStore('summaries').put(summarize(run))] : []),
      ...steps.map((step) => tx.objectStore('steps').put(step)),
      tx.done,
    ]);
  }

  async getRun(id: string) {
    const tx = this.db.transaction(['runs', 'steps']);
    const [run, steps] = await Promise.all([
      tx.objectStore('runs').get(id),
      tx.objectStore('steps').index('runId').getAll(id),
    ]);
    await tx.done;
    if (!run) return undefined;
    const checkedRun = check(RunRecordSchema, run);
    if (!checkedRun.ok) throw new DamagedRunError(id, checkedRun.problem);
    const checkedSteps: StepRecord[] = [];
    for (const step of steps) {
      const checkedStep = check(StepRecordSchema, step);
      if (!checkedStep.ok) {
        const index = (step as { index?: unknown }).index;
        throw new DamagedRunError(id, `step ${String(index)}: ${checkedStep.problem}`);
      }
      checkedSteps.push(checkedStep.value);
    }
    return { run: checkedRun.value, steps: checkedSteps.sort((a, b) => a.index - b.index) };
  }

  async listRuns(options: { limit?: number } = {}): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    let cursor = await this.db.transaction('runs').store.index('updatedAt').openCursor(null, 'prev');
    while (cursor && out.length < (options.limit ?? Infinity)) {
      const checked = check(RunRecordSchema, cursor.value);
      if (checked.ok) out.push(checked.value);
      cursor = await cursor.continue();
    }
    return out;
  }

  async listSummaries(options: {
    limit: number;
    from?: { updatedAt: number; id: string };
  }): Promise<SummaryPage> {
    const index = this.db.transaction('summaries').store.index('updatedAt');
    const range = options.from ? IDBKeyRange.upperBound([options.from.updatedAt, options.from.id]) : null;
    const page: SummaryPage = { summaries: [], skipped: [] };
    let cursor = await index.openCursor(range, 'prev');
    let rows = 0;
    while (cursor && rows < options.limit) {
      const read = readSummary(cursor.value);
      if (read.ok) page.summaries.push(read.summary);
      else page.skipped.push(read.skipped);
      rows++;
      cursor = await cursor.continue();
    }
    if (cursor) {
      const [updatedAt, id] = cursor.key;
      page.next = { updatedAt, id };
    }
    return page;
  }

  async allSummaries(): Promise<{ summaries: RunSummary[]; skipped: SkippedRun[] }> {
    const out: { summaries: RunSummary[]; skipped: SkippedRun[] } = { summaries: [], skipped: [] };
    for (const row of await this.db.getAllFromIndex('summaries', 'updatedAt')) {
      const read = readSummary(row);
      if (read.ok) out.summaries.push(read.summary);
      else out.skipped.push(read.skipped);
    }
    out.summaries.reverse();
    return out;
  }

  async listDamaged(): Promise<SkippedRun[]> {
    const rows = await this.db.getAllFromIndex('summaries', 'problem');
    return rows.map((row) => ({ id: String(row.id), problem: 'problem' in row ? String(row.problem) : '' }));
  }

  async deleteRun(id: string): Promise<void> {
    const tx = this.db.transaction<StoreNames<RunsDB>[], 'readwrite'>(
      ['runs', 'steps', 'summaries', ATTACHMENTS_STORE],
      'readwrite',
    );
    const steps = tx.objectStore('steps');
    const keys = await steps.index('runId').getAllKeys(id);
    const files = (await tx.objectStore('runs').get(id))?.attachmentIds ?? [];
    await Promise.all([
      tx.objectStore('runs').delete(id),
      tx.objectStore('summaries').delete(id),
      ...keys.map((key) => steps.delete(key)),
    ]);
    // A file goes with the last run that refers to it.
    if (Array.isArray(files)) await deleteUnreferenced(tx, files);
    await tx.done;
  }

  async putAttachments(attachments: readonly Attachment[]): Promise<void> {
    if (attachments.length === 0) return;
    const tx = this.db.transaction<StoreNames<RunsDB>[], 'readwrite'>(
      ['runs', ATTACHMENTS_STORE],
      'readwrite',
    );
    await Promise.all([putAttachments(tx, attachments), tx.done]);
  }

  getAttachments(refs: readonly AttachmentRef[]): Promise<Attachment[]> {
    return readAttachments(this.db, refs);
  }

  attachmentBytes(): Promise<number> {
    return storedAttachmentBytes(this.db);
  }

  async findUnfinished(): Promise<RunRecord[]> {
    const tx = this.db.transaction(['runs', 'steps']);
    const rows = await tx.objectStore('runs').index('status').getAll('running');
    const readable: RunRecord[] = [];
    // Only a run that can be resumed is offered: its record and every step must pass the schema.
    for (const row of rows) {
      const run = check(RunRecordSchema, row);
      if (!run.ok) continue;
      const steps = await tx.objectStore('steps').index('runId').getAll(run.value.id);
      if (steps.every((step) => check(StepRecordSchema, step).ok)) readable.push(run.value);
    }
    await tx.done;
    return readable.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async discardRun(id: string, reason = 'Discarded after a reload.'): Promise<void> {
    const now = Date.now();
    const tx = this.db.transaction(['runs', 'steps', 'summaries'], 'readwrite');
    const runs = tx.objectStore('runs');
    const steps = tx.objectStore('steps');
    const run = await runs.get(id);
    if (run) {
      const discarded: RunRecord = { ...run, status: 'cancelled', error: reason, updatedAt: now };
      await Promise.all([runs.put(discarded), tx.objectStore('summaries').put(summarize(discarded))]);
    }
    for (const step of await steps.index('runId').getAll(id)) {
      if (step.state === 'done' || step.state === 'failed' || step.state === 'cancelled') continue;
      await steps.put({
        ...step,
        state: 'cancelled',
        error: reason,
        timings: { ...(typeof step.timings === 'object' ? step.timings : {}), endedAt: now },
      });
    }
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}

/** Opens (creating or upgrading as needed) the runs database: the run store and the thread store read it. */
export async function openRunsDatabase(name = RUNS_DB_NAME): Promise<IDBPDatabase<RunsDB>> {
  const db = await openDB<RunsDB>(name, RUNS_DB_VERSION, {
    async upgrade(database, oldVersion, _newVersion, tx) {
      if (oldVersion < 1) {
        const runs = database.createObjectStore('runs', { keyPath: 'id' });
        runs.createIndex('updatedAt', 'updatedAt');
        runs.createIndex('status', 'status');
        const steps = database.createObjectStore('steps', { keyPath: ['runId', 'index'] });
        steps.createIndex('runId', 'runId');
      }
      if (oldVersion < 2) {
        const summaries = database.createObjectStore('summaries', { keyPath: 'id' });
        // [updatedAt, id]: a total order, so a page boundary never splits runs written in the same ms.
        summaries.createIndex('updatedAt', ['updatedAt', 'id']);
        // Only `problem` rows have the field, so this index lists exactly the unreadable runs.
        summaries.createIndex('problem', 'problem');
        // Existing runs get their summaries here, in the upgrade's own transaction.
        let cursor = await tx.objectStore('runs').openCursor();
        while (cursor) {
          await tx.objectStore('summaries').put(summarize(cursor.value));
          cursor = await cursor.continue();
        }
      }
      // Attached files: their own step, apart from any other change to the runs database (stores are
      // made before the threads' upgrade awaits anything).
      if (oldVersion < 3) addAttachmentStores(database, tx);
      if (oldVersion < 3) await upgradeToThreads(database, tx);
    },
  });
  return db;
}

/** Opens (creating if needed) the runs database. */
export async function openRunStore(name = RUNS_DB_NAME): Promise<RunHistoryStore> {
  return new IdbRunStore(await openRunsDatabase(name));
}

/**
 * Threads: a store of thread records, and a summaries index by thread and turn. Every run already stored
 * becomes the one turn of a thread with its own id and its first question as title, so nothing a user had
 * is lost or hidden; a run whose record cannot be read keeps its thread too (shown as an unreadable turn).
 */
async function upgradeToThreads(
  database: IDBPDatabase<RunsDB>,
  tx: IDBPTransaction<RunsDB, StoreNames<RunsDB>[], 'versionchange'>,
): Promise<void> {
  const threads = database.createObjectStore('threads', { keyPath: 'id' });
  threads.createIndex('updatedAt', 'updatedAt');
  tx.objectStore('summaries').createIndex('threadTurn', ['threadId', 'turn']);
  let cursor = await tx.objectStore('runs').openCursor();
  while (cursor) {
    const raw = cursor.value as unknown as Record<string, unknown>;
    if (typeof raw === 'object' && raw !== null && typeof raw.id === 'string') {
      const link = rawThreadLink(raw);
      const run = { ...raw, ...link } as unknown as RunRecord;
      await cursor.update(run);
      await tx.objectStore('summaries').put(summarize(run));
      const updatedAt = typeof raw.updatedAt === 'number' ? raw.updatedAt : 0;
      await threads.put({
        id: link.threadId,
        schema: 1,
        title: typeof raw.question === 'string' ? raw.question : '',
        createdAt: typeof raw.createdAt === 'number' ? raw.createdAt : updatedAt,
        updatedAt,
        leafRunId: raw.id,
      });
    }
    cursor = await cursor.continue();
  }
}
