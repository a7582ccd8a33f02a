import { afterEach, describe, expect, it, vi } from 'vitest';
import { STREAM_BATCH_CHARS, STREAM_WINDOW_MS, streamBatches } from '../../../src/executor/stream-batches.ts';
import type { ChatEvent } from '../../../src/providers/transport.ts';

/** A source the test feeds by hand: `push` an event, `end` it, or `fail` it. */
function source() {
  const queue: IteratorResult<ChatEvent>[] = [];
  let waiter: { resolve: (r: IteratorResult<ChatEvent>) => void; reject: (e: unknown) => void } | undefined;
  let failure: unknown;
  let returned = false;
  const settle = () => {
    if (!waiter) return;
    const { resolve, reject } = waiter;
    if (failure !== undefined) {
      waiter = undefined;
      reject(failure);
    } else if (queue.length > 0) {
      waiter = undefined;
      resolve(queue.shift()!);
    }
  };
  const iterator: AsyncIterator<ChatEvent> = {
    next: () =>
      new Promise((resolve, reject) => {
        waiter = { resolve, reject };
        settle();
      }),
    return: async () => {
      returned = true;
      return { done: true, value: undefined };
    },
  };
  return {
    iterator,
    push(event: ChatEvent) {
      queue.push({ done: false, value: event });
      settle();
    },
    end() {
      queue.push({ done: true, value: undefined });
      settle();
    },
    fail(error: unknown) {
      failure = error;
      settle();
    },
    returned: () => returned,
  };
}

const delta = (text: string): ChatEvent => ({ type: 'delta', text });
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Lets the promise callbacks run (fake timers or not). */
const flushed = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

describe('streamBatches', () => {
  it('passes the first text on at once, then a window of text as one event with the piece that ends it', async () => {
    vi.useFakeTimers();
    const s = source();
    const batches = streamBatches(s.iterator, STREAM_WINDOW_MS, Date.now);
    const first = batches.next();
    s.push(delta('a'));
    expect(await first).toEqual({ done: false, value: delta('a') });
    const second = batches.next();
    let got: IteratorResult<ChatEvent> | undefined;
    void second.then((r) => {
      got = r;
    });
    s.push(delta('b'));
    s.push({ type: 'usage', promptTokens: 1, completionTokens: 1 });
    s.push(delta('c'));
    s.push({ type: 'usage', promptTokens: 1, completionTokens: 3 });
    await vi.advanceTimersByTimeAsync(STREAM_WINDOW_MS - 1);
    expect(got).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    s.push(delta('d'));
    await flushed();
    expect(got).toEqual({ done: false, value: delta('bcd') });
    // Of the usage events, the last: each replaces the one before.
    expect(await batches.next()).toEqual({
      done: false,
      value: { type: 'usage', promptTokens: 1, completionTokens: 3 },
    });
  });

  it('passes what it holds on when the stream pauses', async () => {
    vi.useFakeTimers();
    const s = source();
    const batches = streamBatches(s.iterator, STREAM_WINDOW_MS, Date.now);
    const first = batches.next();
    s.push(delta('a'));
    await first;
    const next = batches.next();
    let got: IteratorResult<ChatEvent> | undefined;
    void next.then((r) => {
      got = r;
    });
    s.push(delta('b'));
    await vi.advanceTimersByTimeAsync(2 * STREAM_WINDOW_MS - 1);
    expect(got).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(got).toEqual({ done: false, value: delta('b') });
  });

  it("passes what it holds on at the stream's end, without waiting for the window", async () => {
    vi.useFakeTimers();
    const s = source();
    const batches = streamBatches(s.iterator);
    const first = batches.next();
    s.push(delta('a'));
    await first;
    s.push(delta('b'));
    s.push({ type: 'reasoning', text: 'r' });
    s.push({ type: 'citation', url: 'https://example.com/' });
    s.end();
    const events: ChatEvent[] = [];
    for (let r = await batches.next(); !r.done; r = await batches.next()) events.push(r.value);
    expect(events).toEqual([
      delta('b'),
      { type: 'reasoning', text: 'r' },
      { type: 'citation', url: 'https://example.com/' },
    ]);
  });

  it('passes the text before an error on, then the error', async () => {
    const s = source();
    const batches = streamBatches(s.iterator);
    const first = batches.next();
    s.push(delta('a'));
    await first;
    s.push(delta('b'));
    await flush();
    s.fail(new Error('broke off'));
    expect(await batches.next()).toEqual({ done: false, value: delta('b') });
    await expect(batches.next()).rejects.toThrow('broke off');
  });

  it('passes a large piece on without waiting, so the reader can cut a long answer early', async () => {
    vi.useFakeTimers();
    const s = source();
    const batches = streamBatches(s.iterator);
    const first = batches.next();
    s.push(delta('a'));
    await first;
    const big = 'x'.repeat(STREAM_BATCH_CHARS);
    const next = batches.next();
    s.push(delta(big));
    expect(await next).toEqual({ done: false, value: delta(big) });
  });

  it('closes its source when the reader stops', async () => {
    const s = source();
    const batches = streamBatches(s.iterator);
    const first = batches.next();
    s.push(delta('a'));
    await first;
    await batches.return?.();
    expect(s.returned()).toBe(true);
  });
});
