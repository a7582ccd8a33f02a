import type { ChatEvent } from '../providers/transport.ts';

/**
 * How long streamed text is gathered before the step takes it. A provider sends a chunk per token (a
 * few milliseconds apart); every piece the step takes costs its snapshot, its spend, the run view's update
 * and its persistence check. Taken a window at a time, that work follows the window, not the token rate:
 * a 300-token answer is some twelve steps of work instead of three hundred. The run view draws text about
 * as often (src/app/runs/draw-timing.ts).
 */
export const STREAM_WINDOW_MS = 100;

/**
 * Most characters gathered before they are passed on without waiting for the window: a fast endpoint
 * sending megabytes is taken in pieces, so the answer-length cut still stops reading near its limit.
 */
export const STREAM_BATCH_CHARS = 64 * 1024;

type TextEvent = Extract<ChatEvent, { type: 'delta' | 'reasoning' }>;
type Usage = Extract<ChatEvent, { type: 'usage' }>;

const isText = (event: ChatEvent): event is TextEvent => event.type === 'delta' || event.type === 'reasoning';

/**
 * `source` read as fast as it comes, its events passed on a window at a time: the text of consecutive
 * pieces of one kind joined into one event, the sources cited after it, and of the usage events only
 * the last (each replaces the one before). The first piece of text goes on at once (the first token is a
 * moment the step records), and so does the end of the stream or its error, with everything before it:
 * nothing waits for the window then. `return()` stops reading the source and closes it.
 */
export function streamBatches(
  source: AsyncIterator<ChatEvent>,
  windowMs = STREAM_WINDOW_MS,
  now: () => number = () => performance.now(),
): AsyncIterator<ChatEvent> {
  /** Gathered, not yet passed on. */
  let texts: TextEvent[] = [];
  let citations: ChatEvent[] = [];
  let usage: Usage | undefined;
  let gathered = 0;
  /** Passed on, waiting for the reader. */
  const ready: ChatEvent[] = [];
  let end: { error?: unknown } | undefined;
  let textSeen = false;
  /** When the last window was passed on. */
  let lastPassed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiting: { resolve: (r: IteratorResult<ChatEvent>) => void; reject: (e: unknown) => void } | undefined;
  let started = false;
  let closed = false;

  function passOn(): void {
    lastPassed = now();
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    ready.push(...texts, ...citations);
    if (usage) ready.push(usage);
    texts = [];
    citations = [];
    usage = undefined;
    gathered = 0;
    wake();
  }

  function wake(): void {
    if (!waiting) return;
    const { resolve, reject } = waiting;
    const next = ready.shift();
    if (next) {
      waiting = undefined;
      resolve({ done: false, value: next });
    } else if (end) {
      waiting = undefined;
      if ('error' in end) reject(end.error);
      else resolve({ done: true, value: undefined });
    }
  }

  function gather(event: ChatEvent): void {
    if (isText(event)) {
      const last = texts.at(-1);
      if (last?.type === event.type)
        texts[texts.length - 1] = { type: event.type, text: last.text + event.text };
      else texts.push(event);
      gathered += event.text.length;
      if (!textSeen || gathered >= STREAM_BATCH_CHARS) {
        textSeen = true;
        passOn();
        return;
      }
    } else if (event.type === 'usage') usage = event;
    else citations.push(event);
    // A piece that comes once the window has passed takes the window on with it; the timer is for a
    // stream that pauses, and waits twice as long, so on a steady stream it is cleared, not run: a task
    // each window was as dear as the step's work it saved.
    if (now() - lastPassed >= windowMs) passOn();
    else timer ??= setTimeout(passOn, 2 * windowMs);
  }

  async function pump(): Promise<void> {
    try {
      for (;;) {
        const next = await source.next();
        if (closed) return;
        if (next.done) break;
        gather(next.value);
      }
      end = {};
    } catch (error) {
      end = { error };
    }
    if (!closed) passOn();
  }

  return {
    next() {
      if (!started) {
        started = true;
        void pump();
      }
      const value = ready.shift();
      if (value) return Promise.resolve({ done: false, value });
      if (end)
        return 'error' in end ? Promise.reject(end.error) : Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
      });
    },
    async return() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      waiting?.resolve({ done: true, value: undefined });
      waiting = undefined;
      await source.return?.();
      return { done: true, value: undefined };
    },
  };
}
