import type { IDBPDatabase } from 'idb';
import { z } from 'zod';
import { removeKeyShapes } from '../providers/key-shapes.ts';
import { check, RunSummarySchema } from './record-schema.ts';
import { openRunsDatabase } from './run-store.ts';
import { RUNS_DB_NAME, type RunSummary, type RunsDB } from './runs-db.ts';

/** One earlier turn of a thread, as the worker sees it. */
export interface PastTurn {
  question: string;
  /** Its number in the thread, from 0 (shown from 1): what the step card names it by. */
  turn?: number;
  /** The turn's final answer; a turn without one (failed, cancelled) is left out. */
  answer?: string;
  /** The worker that wrote the final answer (a follow-up may go back to it: auto mode's stickiness). */
  worker?: string;
}

/**
 * Threads: a conversation is a tree of runs (each run one turn), linked by `parentRunId`; a branch is the
 * path from the first turn to a leaf. The `threads` store keeps what is the thread's own (title, the branch
 * on screen); everything else is read from the run summaries, through their [threadId, turn] index and
 * their parent links, so opening a long thread reads only the turns it shows.
 */

/** The thread record's layout; an export names it, and an import of another is refused. */
export const THREAD_SCHEMA_VERSION = 1;

export interface ThreadRecord {
  id: string;
  schema: typeof THREAD_SCHEMA_VERSION;
  /** The first question, until the user renames it. */
  title: string;
  titleEdited?: true;
  createdAt: number;
  updatedAt: number;
  /** The last turn of the branch on screen; absent: the newest turn of the deepest branch. */
  leafRunId?: string;
  /**
   * Standing instructions (a system prompt) for every worker step of every turn, and one short line for
   * the planner. Absent in records written before there were any: those open as threads without.
   */
  instructions?: string;
  /** Pinned by the user: listed before the others, whatever their age. */
  pinned?: true;
}

export const ThreadRecordSchema = z.looseObject({
  id: z.string().min(1),
  schema: z.literal(THREAD_SCHEMA_VERSION),
  title: z.string().catch(''),
  titleEdited: z.literal(true).optional().catch(undefined),
  createdAt: z.number().finite(),
  updatedAt: z.number().finite(),
  leafRunId: z.string().min(1).optional().catch(undefined),
  instructions: z.string().optional().catch(undefined),
  pinned: z.literal(true).optional().catch(undefined),
});

/** One turn of a branch: its summary, or why it cannot be read (the thread opens with the rest intact). */
export interface ThreadTurn {
  id: string;
  turn: number;
  parentRunId?: string;
  summary?: RunSummary;
  problem?: string;
}

export interface ThreadPage {
  thread: ThreadRecord;
  /** The page's turns, oldest first, ending with the branch's last turn (or with `before`'s parent). */
  turns: ThreadTurn[];
  /** Turns in the branch in all, by the last turn's number (those missing below included). */
  total: number;
  /**
   * Turns at the branch's start that are no longer stored (a run of the thread deleted on its own): set
   * when this page's walk from the end reached a previous turn that is gone, absent otherwise.
   */
  missing?: number;
  /** The branch's last turn. */
  leafRunId: string;
  /**
   * For each turn of the page that has other branches (an edited question, a regenerated answer): every
   * run at its place, oldest first, itself included. Read in one go with the page.
   */
  branches: Record<string, string[]>;
}

/** What History lists of a thread. */
export interface ThreadListing {
  id: string;
  title: string;
  createdAt: number;
  /** The newest change to any of its turns (or its title). */
  updatedAt: number;
  /** Turns of the branch on screen that are stored (a turn deleted on its own cuts off those before it). */
  turns: number;
  /** Runs of every branch (edits and regenerations are runs too). */
  runs: number;
  /** US dollars over every run of every branch. */
  cost: number;
  /** Some run went to a worker with no price: `cost` leaves it out. */
  unpriced?: true;
  /** Some of the spend was estimated (a provider sent no usage). */
  estimated?: true;
  /** The branch's last run: what opening the thread shows. */
  leafRunId: string;
  /** Pinned by the user (ThreadRecord.pinned). */
  pinned?: true;
}

type SummaryRow = RunsDB['summaries']['value'];

function turnOf(row: SummaryRow): ThreadTurn {
  const base: ThreadTurn = { id: String(row.id), turn: row.turn ?? 0 };
  if (row.parentRunId !== undefined) base.parentRunId = row.parentRunId;
  if ('problem' in row) return { ...base, problem: String(row.problem) };
  const checked = check(RunSummarySchema, row);
  return checked.ok ? { ...base, summary: checked.value } : { ...base, problem: checked.problem };
}

export interface ThreadStore {
  /** The thread, or one made up from its runs when it has no record (a run imported on its own). */
  getThread(id: string): Promise<ThreadRecord | undefined>;
  putThread(thread: ThreadRecord): Promise<void>;
  /** The last `limit` turns of a branch (the one on screen unless `leafRunId`), or those before `before`. */
  openThread(
    id: string,
    options: { limit: number; leafRunId?: string; before?: string },
  ): Promise<ThreadPage | undefined>;
  /** The runs at turn `turn` of the thread that follow `parentRunId` (the branches there), oldest first. */
  alternatives(threadId: string, turn: number, parentRunId: string | undefined): Promise<ThreadTurn[]>;
  /** The last turn of the newest branch that goes through `runId`. */
  leafUnder(threadId: string, runId: string): Promise<string>;
  /**
   * The earlier turns of a run whose previous turn is `parentRunId`, oldest first, at most `limit` of
   * them (the newest): what its workers and its planner are shown.
   */
  pastTurns(parentRunId: string | undefined, limit?: number): Promise<PastTurn[]>;
  /** Every thread, newest activity first. */
  listThreads(): Promise<ThreadListing[]>;
  /** The ids of every run of every branch, by turn then age (what an export of the whole thread holds). */
  runIds(threadId: string): Promise<string[]>;
  /** The thread record, and every run of every branch with its steps. */
  deleteThread(id: string): Promise<void>;
  close(): void;
}

/** The most earlier turns a follow-up reads: more would not fit any worker's or the planner's budget. */
export const PAST_TURNS_READ = 100;

class IdbThreadStore implements ThreadStore {
  constructor(private readonly db: IDBPDatabase<RunsDB>) {}

  private async rowsOf(threadId: string): Promise<SummaryRow[]> {
    const range = IDBKeyRange.bound([threadId, 0], [threadId, Number.MAX_SAFE_INTEGER]);
    return this.db.getAllFromIndex('summaries', 'threadTurn', range);
  }

  async getThread(id: string): Promise<ThreadRecord | undefined> {
    const stored = check(ThreadRecordSchema, await this.db.get('threads', id));
    if (stored.ok) return stored.value as ThreadRecord;
    // No record (or a damaged one): the thread is its runs, titled by its first question. Only the
    // first turns are read, so a thread without a record opens as fast as one with.
    const range = IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER]);
    // The earliest turn stored: the first, unless its runs were deleted on their own.
    const earliest = await this.db.transaction('summaries').store.index('threadTurn').openCursor(range);
    if (!earliest) return undefined;
    const earliestTurn = earliest.value.turn ?? 0;
    const firsts = await this.db.getAllFromIndex('summaries', 'threadTurn', [id, earliestTurn]);
    // Titled by its earliest question (firstQuestion reads turn 0's).
    const first = firstQuestion(firsts.map((row) => ({ ...turnOf(row), turn: 0 })));
    const at = first?.createdAt ?? Math.min(...firsts.map((r) => r.updatedAt));
    return { id, schema: THREAD_SCHEMA_VERSION, title: first?.question ?? '', createdAt: at, updatedAt: at };
  }

  async putThread(thread: ThreadRecord): Promise<void> {
    await this.db.put('threads', thread);
  }

  /**
   * The branch's last run: the end of the thread's own, while it is still stored (a turn added under it
   * since, whose record update a reload cut off, extends it); else the deepest, newest run.
   */
  private async leafOf(thread: ThreadRecord): Promise<string | undefined> {
    const remembered = thread.leafRunId ? await this.db.get('summaries', thread.leafRunId) : undefined;
    if (remembered) return this.leafBelow(thread.id, String(remembered.id), remembered.turn ?? 0);
    const range = IDBKeyRange.bound([thread.id, 0], [thread.id, Number.MAX_SAFE_INTEGER]);
    const cursor = await this.db.transaction('summaries').store.index('threadTurn').openCursor(range, 'prev');
    return cursor ? String(cursor.value.id) : undefined;
  }

  async openThread(
    id: string,
    options: { limit: number; leafRunId?: string; before?: string },
  ): Promise<ThreadPage | undefined> {
    const thread = await this.getThread(id);
    if (!thread) return undefined;
    const leafRunId = options.leafRunId ?? (await this.leafOf(thread));
    if (!leafRunId) return undefined;
    const tx = this.db.transaction('summaries');
    const leaf = await tx.store.get(leafRunId);
    const total = (leaf?.turn ?? 0) + 1;
    let next: string | undefined = leafRunId;
    if (options.before) next = (await tx.store.get(options.before))?.parentRunId;
    const turns: ThreadTurn[] = [];
    // Where the walk is: the turn number of `next`'s child (the turn `next` precedes).
    let after = options.before ? ((await tx.store.get(options.before))?.turn ?? 0) : total;
    let missing: number | undefined;
    // Parent by parent from the end: as many reads as turns shown, however long the thread is.
    while (next && turns.length < options.limit) {
      const row: SummaryRow | undefined = await tx.store.get(next);
      if (!row) {
        // A previous turn that is gone: every turn before it is out of this branch's reach too.
        missing = after;
        break;
      }
      turns.unshift(turnOf(row));
      after = row.turn ?? 0;
      next = row.parentRunId;
    }
    const page: ThreadPage = { thread, turns, total, leafRunId, branches: await this.branchesOf(id, turns) };
    return missing === undefined ? page : { ...page, missing };
  }

  /** The other runs at the places of `turns`: one read of the index over the page's turns. */
  private async branchesOf(
    threadId: string,
    turns: readonly ThreadTurn[],
  ): Promise<Record<string, string[]>> {
    const first = turns[0];
    const last = turns.at(-1);
    if (!first || !last) return {};
    const rows = await this.db.getAllFromIndex(
      'summaries',
      'threadTurn',
      IDBKeyRange.bound([threadId, first.turn], [threadId, last.turn]),
    );
    const branches: Record<string, string[]> = {};
    for (const turn of turns) {
      const here = rows
        .filter((r) => (r.turn ?? 0) === turn.turn && r.parentRunId === turn.parentRunId)
        .map(turnOf)
        .sort(byAge);
      if (here.length > 1) branches[turn.id] = here.map((t) => t.id);
    }
    return branches;
  }

  async alternatives(threadId: string, turn: number, parentRunId: string | undefined): Promise<ThreadTurn[]> {
    const rows = await this.db.getAllFromIndex('summaries', 'threadTurn', [threadId, turn]);
    return rows
      .filter((r) => r.parentRunId === parentRunId)
      .map(turnOf)
      .sort(byAge);
  }

  async leafUnder(threadId: string, runId: string): Promise<string> {
    return this.leafBelow(threadId, runId, (await this.db.get('summaries', runId))?.turn ?? 0);
  }

  /** leafUnder from run `runId` at turn `turn`, one read of the branches at each turn below it. */
  private async leafBelow(threadId: string, runId: string, turn: number): Promise<string> {
    let at = runId;
    for (;;) {
      const children = await this.alternatives(threadId, turn + 1, at);
      // The newest branch from here: the one written last.
      const newest = children.at(-1);
      if (!newest) return at;
      at = newest.id;
      turn += 1;
    }
  }

  async pastTurns(parentRunId: string | undefined, limit = PAST_TURNS_READ): Promise<PastTurn[]> {
    const tx = this.db.transaction(['summaries', 'runs']);
    const out: PastTurn[] = [];
    let next = parentRunId;
    while (next && out.length < limit) {
      const row: SummaryRow | undefined = await tx.objectStore('summaries').get(next);
      if (!row) break;
      const turn = turnOf(row);
      // An unreadable turn is left out of the conversation: nothing of it can be shown to a worker.
      if (turn.summary) {
        // A key the user did not choose to send stays out of later turns (a question asked before the
        // warning, or an answer that quoted it): what goes on is "[key removed]".
        const told = turn.summary.keptKey ? (text: string) => text : removeKeyShapes;
        const past: PastTurn = { question: told(turn.summary.question), turn: turn.turn };
        if (turn.summary.answer !== undefined) past.answer = told(turn.summary.answer);
        if (turn.summary.finalWorker !== undefined) past.worker = turn.summary.finalWorker;
        out.unshift(past);
      }
      next = row.parentRunId;
    }
    await tx.done;
    return out;
  }

  async listThreads(): Promise<ThreadListing[]> {
    const [rows, records] = await Promise.all([this.db.getAll('summaries'), this.db.getAll('threads')]);
    const threads = new Map<string, ThreadRecord>();
    for (const raw of records) {
      const checked = check(ThreadRecordSchema, raw);
      if (checked.ok) threads.set(checked.value.id, checked.value as ThreadRecord);
    }
    const byThread = new Map<string, ThreadTurn[]>();
    for (const row of rows) {
      const threadId = row.threadId ?? String(row.id);
      const list = byThread.get(threadId) ?? [];
      list.push(turnOf(row));
      byThread.set(threadId, list);
    }
    const out: ThreadListing[] = [];
    for (const [id, turns] of byThread) {
      const record = threads.get(id);
      const deepest = turns.reduce((a, b) =>
        b.turn > a.turn || (b.turn === a.turn && updated(b) > updated(a)) ? b : a,
      );
      const remembered = turns.find((t) => t.id === record?.leafRunId);
      const leaf = remembered ? newestBelow(remembered, turns) : deepest;
      const first = firstQuestion(turns);
      const listing: ThreadListing = {
        id,
        title: record?.title || first?.question || '',
        createdAt: record?.createdAt ?? first?.createdAt ?? 0,
        updatedAt: Math.max(record?.updatedAt ?? 0, ...turns.map(updated)),
        turns: turnsReached(leaf, turns),
        runs: turns.length,
        cost: turns.reduce((sum, t) => sum + (t.summary?.cost ?? 0), 0),
        leafRunId: leaf.id,
      };
      if (turns.some((t) => t.summary?.unpriced)) listing.unpriced = true;
      if (turns.some((t) => t.summary?.estimated)) listing.estimated = true;
      if (record?.pinned) listing.pinned = true;
      out.push(listing);
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
  }

  async runIds(threadId: string): Promise<string[]> {
    return (await this.rowsOf(threadId))
      .map(turnOf)
      .sort((a, b) => a.turn - b.turn || updated(a) - updated(b))
      .map((t) => t.id);
  }

  async deleteThread(id: string): Promise<void> {
    const runIds = (await this.rowsOf(id)).map((r) => String(r.id));
    const tx = this.db.transaction(['runs', 'steps', 'summaries', 'threads'], 'readwrite');
    const steps = tx.objectStore('steps');
    const work: Promise<unknown>[] = [tx.objectStore('threads').delete(id)];
    for (const runId of runIds) {
      work.push(tx.objectStore('runs').delete(runId), tx.objectStore('summaries').delete(runId));
      for (const key of await steps.index('runId').getAllKeys(runId)) work.push(steps.delete(key));
    }
    await Promise.all([...work, tx.done]);
  }

  close(): void {
    this.db.close();
  }
}

/** The thread's first question: its oldest readable first turn (an edit of it makes a later one). */
function firstQuestion(turns: readonly ThreadTurn[]): RunSummary | undefined {
  let first: RunSummary | undefined;
  for (const t of turns) {
    if (t.turn === 0 && t.summary && (!first || t.summary.createdAt < first.createdAt)) first = t.summary;
  }
  return first;
}

/**
 * The last turn of the newest branch under `from` among `turns`: leafBelow's rule (the newest run at the
 * next turn that follows it, and so on) over turns already read.
 */
function newestBelow(from: ThreadTurn, turns: readonly ThreadTurn[]): ThreadTurn {
  const children = new Map<string, ThreadTurn[]>();
  for (const turn of turns) {
    if (turn.parentRunId === undefined) continue;
    const siblings = children.get(turn.parentRunId);
    if (siblings) siblings.push(turn);
    else children.set(turn.parentRunId, [turn]);
  }
  let at = from;
  for (;;) {
    const here = at;
    const newest = (children.get(here.id) ?? [])
      .filter((t) => t.turn === here.turn + 1)
      .sort(byAge)
      .at(-1);
    if (!newest) return at;
    at = newest;
  }
}

function byAge(a: ThreadTurn, b: ThreadTurn): number {
  return (a.summary?.createdAt ?? 0) - (b.summary?.createdAt ?? 0) || (a.id < b.id ? -1 : 1);
}

/** The turns of the branch ending at `leaf` that are stored: back to its first, or to a turn that is gone. */
function turnsReached(leaf: ThreadTurn, turns: readonly ThreadTurn[]): number {
  const byId = new Map(turns.map((t) => [t.id, t]));
  let count = 0;
  // At most every turn once: damaged links that loop end there.
  for (let at: ThreadTurn | undefined = leaf; at && count < turns.length; count++)
    at = at.parentRunId ? byId.get(at.parentRunId) : undefined;
  return count;
}

function updated(turn: ThreadTurn): number {
  return turn.summary?.updatedAt ?? 0;
}

/** Opens the thread store over the runs database (upgrading it, as the run store does, when it is older). */
export async function openThreadStore(name = RUNS_DB_NAME): Promise<ThreadStore> {
  return new IdbThreadStore(await openRunsDatabase(name));
}
