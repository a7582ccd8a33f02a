// Opening a long thread: the time to read what shows a thread's last turn (the thread, its branch's last turn
// and that turn's whole run: src/app/threads/opening.ts readThreadEnd) for a 200-turn
// thread against a 2-turn one, over the real thread and run stores on fake-indexeddb in Node. What the
// page then draws is at most one page of turns (THREAD_PAGE_TURNS) either way, so the reads are what
// could grow with the thread.
import 'fake-indexeddb/auto';
import { readThreadEnd, THREAD_PAGE_TURNS } from '../src/app/threads/opening.ts';
import { openRunStore } from '../src/records/run-store.ts';
import type { RunRecord } from '../src/records/runs-db.ts';
import { openThreadStore } from '../src/records/thread-store.ts';
import { goodRun, goodStep } from '../test/fixtures/run-records.ts';
import { median, quantile, round, sample } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const ROUNDS = 40;
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu '.repeat(30);

/** Writes a thread of `turns` turns (each a one-step run with a ~1.5 KB answer) into database `name`. */
async function writeThread(name: string, threadId: string, turns: number): Promise<void> {
  const store = await openRunStore(name);
  const t0 = 1_750_000_000_000;
  let parent: string | undefined;
  for (let turn = 0; turn < turns; turn++) {
    const id = `${threadId}-${turn}`;
    const run: RunRecord = goodRun(id, t0 + turn * 1000 + 500, {
      question: `Follow-up ${turn}: ${WORDS.slice(0, 120)}`,
      plan: { steps: [{ worker: 'w1', task: 'Answer the question.', sees: [] }] },
      createdAt: t0 + turn * 1000,
      answer: `Answer ${turn}: ${WORDS.slice(0, 1500)}`,
      threadId,
      turn,
      ...(parent ? { parentRunId: parent } : {}),
    });
    await store.putRun(run);
    await store.putStep(
      goodStep(id, 0, {
        task: 'Answer the question.',
        text: run.answer ?? '',
        timings: { queuedAt: run.createdAt, startedAt: run.createdAt, endedAt: run.updatedAt },
      }),
    );
    parent = id;
  }
  store.close();
}

async function threadOpen(): Promise<BenchResult> {
  const name = `bench-thread-open-${Date.now()}`;
  await writeThread(name, 'short', 2);
  await writeThread(name, 'long', 200);
  const [threads, runs] = await Promise.all([openThreadStore(name), openRunStore(name)]);
  const open = (id: string) => async () => {
    const t = performance.now();
    const read = await readThreadEnd(threads, runs, id);
    if (!read?.last) throw new Error(`thread ${id} did not open at its last turn`);
    return { ms: performance.now() - t, turns: read.page.turns.length };
  };
  // Side by side, alternating, so a slow moment of the machine falls on both.
  const short: number[] = [];
  const long: number[] = [];
  let shownLong = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const [s] = await sample(1, i === 0 ? 3 : 0, open('short'));
    const [l] = await sample(1, i === 0 ? 3 : 0, open('long'));
    if (s) short.push(s.ms);
    if (l) {
      long.push(l.ms);
      shownLong = l.turns;
    }
  }
  threads.close();
  runs.close();
  const ratio = median(long) / median(short);
  return {
    value: round(ratio),
    goal: 2,
    unit: 'ratio',
    better: 'lower',
    notes:
      `median ${round(median(long))} ms (p90 ${round(quantile(long, 0.9))}) for 200 turns vs ${round(median(short))} ms` +
      ` (p90 ${round(quantile(short, 0.9))}) for 2, ${ROUNDS} rounds each; the last turn is read alone (${shownLong} turn)` +
      ` and drawn, then the ${THREAD_PAGE_TURNS} turns before it, earlier ones on request; Node and fake-indexeddb, not a browser`,
  };
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p17-thread-open',
    title: "P17: time to read a thread's last turn, 200 turns ÷ 2 turns",
    run: threadOpen,
  },
];
