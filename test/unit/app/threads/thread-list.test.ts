import { describe, expect, it } from 'vitest';
import { listedThreads } from '../../../../src/app/threads/thread-list.ts';
import { type ThreadListing, ThreadRecordSchema } from '../../../../src/records/thread-store.ts';

function listing(id: string, title: string, pinned = false): ThreadListing {
  return {
    id,
    title,
    createdAt: 0,
    updatedAt: 0,
    turns: 1,
    runs: 1,
    cost: 0,
    leafRunId: `${id}-run`,
    ...(pinned ? { pinned: true as const } : {}),
  };
}

// The store's order: newest activity first.
const THREADS = [
  listing('a', 'Tax return questions'),
  listing('b', 'Holiday plans', true),
  listing('c', 'Rust lifetimes'),
  listing('d', 'Garden soil', true),
];

describe('the thread list beside the conversation', () => {
  it('lists pinned threads first, each group in the order of its last activity', () => {
    expect(listedThreads(THREADS).map((t) => t.id)).toEqual(['b', 'd', 'a', 'c']);
  });

  it('finds a thread by the words of its title, in any case and order', () => {
    const found = listedThreads(THREADS, { query: 'LIFETIMES rust', matches: undefined });
    expect(found.map((t) => t.id)).toEqual(['c']);
  });

  it("finds a thread by its turns' questions and answers (History's search results), pinned first", () => {
    const found = listedThreads(THREADS, { query: 'compost', matches: new Set(['a', 'd']) });
    expect(found.map((t) => t.id)).toEqual(['d', 'a']);
  });

  it('lists every thread for a blank query', () => {
    expect(listedThreads(THREADS, { query: '  ', matches: new Set() })).toHaveLength(4);
  });
});

describe('a pinned thread record', () => {
  it('keeps its pin when read back, and reads anything but true as not pinned', () => {
    const record = { id: 't', schema: 1, title: 'x', createdAt: 0, updatedAt: 0 };
    expect(ThreadRecordSchema.parse({ ...record, pinned: true }).pinned).toBe(true);
    expect(ThreadRecordSchema.parse({ ...record, pinned: 'yes' }).pinned).toBeUndefined();
  });
});
