import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { RunRecord } from '../../../src/records/runs-db.ts';
import { openThreadStore, type ThreadStore } from '../../../src/records/thread-store.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';
import { version2Summary, writeVersion2Database } from '../../fixtures/version2-runs.ts';
import { badRuns, writeVersion1 } from './damaged-records.ts';

let dbCount = 0;
const dbName = () => `baton-threads-test-${dbCount++}`;

/** A run that is turn `turn` of `threadId`, after `parentRunId`. */
function turnRun(
  id: string,
  threadId: string,
  turn: number,
  parentRunId?: string,
  at = 1000 + turn,
): RunRecord {
  return goodRun(id, at, { threadId, turn, ...(parentRunId ? { parentRunId } : {}) });
}

/** Writes a branch of `n` turns into `threadId` (run ids `${prefix}0`...), returning the run ids. */
async function writeBranch(name: string, threadId: string, n: number, prefix = 't'): Promise<string[]> {
  const runs = await openRunStore(name);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `${prefix}${i}`;
    await runs.putRun(turnRun(id, threadId, i, ids[i - 1]));
    await runs.putStep(goodStep(id));
    ids.push(id);
  }
  runs.close();
  return ids;
}

async function withThreads<T>(name: string, fn: (threads: ThreadStore) => Promise<T>): Promise<T> {
  const threads = await openThreadStore(name);
  try {
    return await fn(threads);
  } finally {
    threads.close();
  }
}

describe('the upgrade to threads', () => {
  it('opens every run of a version-2 database as a one-turn thread, nothing lost', async () => {
    const name = dbName();
    const runs = [goodRun('a', 100), goodRun('b', 200, { status: 'planned' }), goodRun('c', 300)];
    const [damaged] = badRuns(400);
    await writeVersion2Database({
      name,
      runs: [...runs, damaged?.record],
      steps: runs.map((r) => goodStep(r.id)),
      summaries: [
        ...runs.map(version2Summary),
        { id: 'no-totals', updatedAt: 400, problem: 'totals: expected object, received undefined' },
      ],
    });
    await withThreads(name, async (threads) => {
      const listed = await threads.listThreads();
      expect(listed.map((t) => [t.id, t.title, t.turns, t.runs, t.leafRunId])).toEqual([
        // Its question could still be read: the thread keeps it as its title.
        ['no-totals', 'question no-totals', 1, 1, 'no-totals'],
        ['c', 'question c', 1, 1, 'c'],
        ['b', 'question b', 1, 1, 'b'],
        ['a', 'question a', 1, 1, 'a'],
      ]);
      for (const run of runs) {
        const page = await threads.openThread(run.id, { limit: 10 });
        expect(page?.total).toBe(1);
        expect(page?.turns.map((t) => [t.id, t.summary?.question, t.summary?.answer])).toEqual([
          [run.id, run.question, run.answer],
        ]);
        expect(page?.thread).toMatchObject({ id: run.id, title: run.question, leafRunId: run.id, schema: 1 });
      }
      // The damaged run is a thread too, its one turn marked unreadable with the reason.
      const broken = await threads.openThread('no-totals', { limit: 10 });
      expect(broken?.turns[0]?.problem).toMatch(/totals/);
    });
    // The run store still reads every run whole, now as turn 0 of its own thread.
    const store = await openRunStore(name);
    for (const run of runs) {
      const stored = await store.getRun(run.id);
      expect(stored?.run).toMatchObject({ ...run, threadId: run.id, turn: 0 });
      expect(stored?.steps).toHaveLength(1);
    }
    store.close();
  });

  it('opens every run of a version-1 database as a one-turn thread', async () => {
    const name = dbName();
    await writeVersion1(name, [goodRun('old-1', 10), goodRun('old-2', 20)], [goodStep('old-1')]);
    await withThreads(name, async (threads) => {
      const listed = await threads.listThreads();
      expect(listed.map((t) => [t.id, t.turns])).toEqual([
        ['old-2', 1],
        ['old-1', 1],
      ]);
    });
  });
});

describe('the thread store', () => {
  it('opens a thread with a corrupt turn: that turn is marked unreadable, the others intact', async () => {
    const name = dbName();
    const ids = await writeBranch(name, 'th', 3);
    // The middle turn's record is damaged (as a bad write or a hand edit leaves it).
    const runs = await openRunStore(name);
    await runs.putRun({
      ...turnRun('t1', 'th', 1, 't0'),
      totals: undefined as unknown as RunRecord['totals'],
    });
    runs.close();
    await withThreads(name, async (threads) => {
      const page = await threads.openThread('th', { limit: 10 });
      expect(page?.turns.map((t) => t.id)).toEqual(ids);
      expect(page?.turns.map((t) => Boolean(t.summary))).toEqual([true, false, true]);
      expect(page?.turns[1]?.problem).toMatch(/totals/);
      expect(page?.turns[2]?.summary?.answer).toBe('answer t2');
      // The conversation a follow-up sees skips what cannot be read, and keeps the rest in order, each by
      // its own number (the step card names turns by it).
      expect((await threads.pastTurns('t2')).map((t) => [t.question, t.turn])).toEqual([
        ['question t0', 0],
        ['question t2', 2],
      ]);
    });
  });

  it('keeps a key pasted into a question out of later turns, unless the user kept it', async () => {
    const name = dbName();
    // Made-up keys in Groq's and Google's documented formats (src/providers/key-shapes.ts).
    const groq = `gsk_${'aB3dE6gH9j'.repeat(5)}xy`;
    const google = 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';
    const runs = await openRunStore(name);
    // Turn 0: asked before the warning existed (or past it): its key and an answer quoting it are scrubbed.
    await runs.putRun({
      ...turnRun('k0', 'keys', 0),
      question: `Why is ${groq} refused?`,
      answer: `The key ${groq} has expired.`,
    });
    // Turn 1: the user chose "Send with the key": later turns get it as it is.
    await runs.putRun({ ...turnRun('k1', 'keys', 1, 'k0'), question: `Try ${google}`, keptKey: true });
    runs.close();
    await withThreads(name, async (threads) => {
      const past = await threads.pastTurns('k1');
      expect(past.map((t) => [t.question, t.answer])).toEqual([
        ['Why is [key removed] refused?', 'The key [key removed] has expired.'],
        [`Try ${google}`, 'answer k1'],
      ]);
    });
  });

  it('pages a 200-turn thread from its end, and pages back to its start', async () => {
    const name = dbName();
    const ids = await writeBranch(name, 'long', 200);
    await withThreads(name, async (threads) => {
      const last = await threads.openThread('long', { limit: 20 });
      expect(last?.total).toBe(200);
      expect(last?.turns.map((t) => t.id)).toEqual(ids.slice(180));
      const seen = [...(last?.turns ?? [])];
      let before = seen[0]?.id;
      while (before) {
        const page = await threads.openThread('long', { limit: 20, before });
        if (!page || page.turns.length === 0) break;
        seen.unshift(...page.turns);
        before = page.turns[0]?.id;
      }
      expect(seen.map((t) => t.id)).toEqual(ids);
      expect(seen.map((t) => t.turn)).toEqual(ids.map((_, i) => i));
    });
  });

  it('says how many turns are gone at the start of a branch whose earlier runs were deleted', async () => {
    const name = dbName();
    const ids = await writeBranch(name, 'cut', 30);
    const runs = await openRunStore(name);
    for (const id of ids.slice(0, 4)) await runs.deleteRun(id);
    runs.close();
    await withThreads(name, async (threads) => {
      // The last 20 turns do not reach the gap: nothing is said yet.
      const last = await threads.openThread('cut', { limit: 20 });
      expect(last?.total).toBe(30);
      expect(last?.missing).toBeUndefined();
      // The page before them reaches it: the 6 turns there, and the 4 before them gone.
      const before = await threads.openThread('cut', { limit: 20, before: last!.turns[0]!.id });
      expect(before?.turns.map((t) => t.id)).toEqual(ids.slice(4, 10));
      expect(before?.missing).toBe(4);
      // Asked again before the earliest stored turn: no turns, and the same 4 gone.
      const again = await threads.openThread('cut', { limit: 20, before: ids[4]! });
      expect([again?.turns, again?.missing]).toEqual([[], 4]);
      // History counts the turns that are there.
      expect((await threads.listThreads()).find((t) => t.id === 'cut')?.turns).toBe(26);
    });
  });

  it('keeps branches: alternatives at a turn, the newest branch under a run, the branch on screen', async () => {
    const name = dbName();
    await writeBranch(name, 'br', 3); // t0 → t1 → t2
    const runs = await openRunStore(name);
    // The first question edited: a second branch from the start, with a follow-up of its own.
    await runs.putRun(turnRun('e0', 'br', 0, undefined, 2000));
    await runs.putRun(turnRun('e1', 'br', 1, 'e0', 2001));
    runs.close();
    await withThreads(name, async (threads) => {
      expect((await threads.alternatives('br', 0, undefined)).map((t) => t.id)).toEqual(['t0', 'e0']);
      expect((await threads.alternatives('br', 1, 't0')).map((t) => t.id)).toEqual(['t1']);
      expect(await threads.leafUnder('br', 't0')).toBe('t2');
      expect(await threads.leafUnder('br', 'e0')).toBe('e1');
      // Without a record, the thread shows its deepest branch; with one, the branch it names.
      expect((await threads.openThread('br', { limit: 10 }))?.leafRunId).toBe('t2');
      const thread = await threads.getThread('br');
      if (!thread) throw new Error('no thread');
      await threads.putThread({ ...thread, leafRunId: 'e1' });
      const page = await threads.openThread('br', { limit: 10 });
      expect(page?.turns.map((t) => t.id)).toEqual(['e0', 'e1']);
      const listed = (await threads.listThreads()).find((t) => t.id === 'br');
      expect(listed).toMatchObject({ turns: 2, runs: 5, leafRunId: 'e1', title: 'question t0' });
    });
  });

  it('a turn added under the remembered branch end extends that branch, though the record was not updated', async () => {
    // A follow-up's run is stored as it starts; the thread record names it as the branch end a moment
    // later. A reload in between (then a resume) left the thread opening and listed at the turn before.
    const name = dbName();
    await writeBranch(name, 'cut', 3); // t0 → t1 → t2
    const runs = await openRunStore(name);
    await runs.putRun(turnRun('e0', 'cut', 0, undefined, 2000)); // another branch, newer
    await runs.putRun(turnRun('e1', 'cut', 1, 'e0', 2001));
    runs.close();
    await withThreads(name, async (threads) => {
      const thread = await threads.getThread('cut');
      if (!thread) throw new Error('no thread');
      await threads.putThread({ ...thread, leafRunId: 't1' });
      const page = await threads.openThread('cut', { limit: 10 });
      expect(page?.leafRunId).toBe('t2');
      expect(page?.turns.map((t) => t.id)).toEqual(['t0', 't1', 't2']);
      const listed = (await threads.listThreads()).find((t) => t.id === 'cut');
      expect(listed).toMatchObject({ turns: 3, leafRunId: 't2' });
    });
  });

  it('deletes a thread with every run of every branch', async () => {
    const name = dbName();
    await writeBranch(name, 'gone', 2);
    await writeBranch(name, 'kept', 1, 'k');
    await withThreads(name, (threads) => threads.deleteThread('gone'));
    const runs = await openRunStore(name);
    expect(await runs.getRun('t0')).toBeUndefined();
    expect(await runs.getRun('t1')).toBeUndefined();
    expect(await runs.getRun('k0')).toBeDefined();
    runs.close();
  });

  it("keeps a thread's instructions, and opens a record written before there were any (or a damaged field)", async () => {
    const name = dbName();
    await writeBranch(name, 'in', 2);
    await withThreads(name, async (threads) => {
      // As the version before instructions wrote it: no such field.
      const old = {
        id: 'in',
        schema: 1 as const,
        title: 'Old thread',
        createdAt: 1,
        updatedAt: 2,
        leafRunId: 't1',
      };
      await threads.putThread(old);
      expect(await threads.getThread('in')).toEqual(old);
      expect((await threads.openThread('in', { limit: 5 }))?.turns.map((t) => t.id)).toEqual(['t0', 't1']);
      await threads.putThread({ ...old, instructions: 'Answer in French.' });
      expect((await threads.getThread('in'))?.instructions).toBe('Answer in French.');
      // A field that is not text (a damaged or foreign record) is dropped; the thread keeps its title.
      await threads.putThread({ ...old, instructions: 42 } as unknown as typeof old);
      const read = await threads.getThread('in');
      expect(read?.title).toBe('Old thread');
      expect(read?.instructions).toBeUndefined();
    });
  });
});
