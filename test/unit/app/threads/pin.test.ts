import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { exportThreadJson } from '../../../../src/app/thread-export.ts';
import { createStoredThreads } from '../../../../src/app/threads/stored-threads.ts';
import { createThreadCore } from '../../../../src/app/threads/thread-core.ts';
import { listedThreads } from '../../../../src/app/threads/thread-list.ts';
import { openRunStore } from '../../../../src/records/run-store.ts';
import { openThreadStore } from '../../../../src/records/thread-store.ts';
import { goodRun, goodStep } from '../../../fixtures/run-records.ts';

/** The stored threads over a database of their own, holding two one-turn threads (t2 the newer). */
async function twoThreads() {
  const db = `thread-pin-${crypto.randomUUID()}`;
  const [runStore, threadStore] = await Promise.all([openRunStore(db), openThreadStore(db)]);
  const core = createThreadCore({
    threadStore: async () => threadStore,
    runStore: async () => runStore,
    historyPrefs: () => ({ tokens: null }),
    historyChanged: async () => {},
  });
  const threads = createStoredThreads(core);
  for (const [id, at] of [
    ['t1', 100],
    ['t2', 200],
  ] as const) {
    const thread = { id, schema: 1 as const, title: `Thread ${id}`, createdAt: at, updatedAt: at };
    const run = { run: goodRun(`${id}-r0`, at, { threadId: id, turn: 0 }), steps: [goodStep(`${id}-r0`)] };
    const imported = await threads.importThread(exportThreadJson(thread, [run]));
    if (!imported.ok) throw new Error(imported.error);
  }
  await threads.loadList();
  return { threads, listing: core.listing };
}

describe('pinning a thread', () => {
  it('lists it first, keeps its place by time otherwise, and is undone by unpinning', async () => {
    const { threads, listing } = await twoThreads();
    const order = () => listedThreads(listing.value ?? []).map((t) => t.id);
    expect(order()).toEqual(['t2', 't1']);
    const before = listing.value?.find((t) => t.id === 't1')?.updatedAt;

    await threads.setPinned('t1', true);
    expect(order()).toEqual(['t1', 't2']);
    expect(listing.value?.find((t) => t.id === 't1')).toMatchObject({ pinned: true, updatedAt: before });

    await threads.setPinned('t1', false);
    expect(order()).toEqual(['t2', 't1']);
    expect(listing.value?.find((t) => t.id === 't1')).not.toHaveProperty('pinned');
  });

  it('goes out with the thread and comes back in with it', async () => {
    const { threads } = await twoThreads();
    await threads.setPinned('t1', true);
    const file = JSON.parse((await threads.threadJson('t1'))!) as { thread: { pinned?: boolean } };
    expect(file.thread.pinned).toBe(true);
  });
});
