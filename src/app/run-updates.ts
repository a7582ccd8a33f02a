import type { ExecutorEvent } from '../executor/types.ts';
import { applyEvent, type RunView } from './run-model.ts';

/** Runs `flush` once, before the next frame is drawn. */
export type FrameScheduler = (flush: () => void) => void;

export const nextFrame: FrameScheduler = (flush) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => flush());
  else setTimeout(flush, 16);
};

/**
 * The frame after at least `ms` since the last flush began: streamed text is drawn about ten times a
 * second, not sixty. Each draw re-lays and repaints the step's card (and, without a GPU, rasterises it on
 * the CPU): drawing every frame made the page's main thread seven times busier than the requests it
 * shows (P13), for text no one reads faster than this.
 */
export function throttledFrames(ms = 100, now: () => number = () => performance.now()): FrameScheduler {
  let last = Number.NEGATIVE_INFINITY;
  return (flush) => {
    const wait = Math.max(0, last + ms - now());
    const run = () =>
      nextFrame(() => {
        last = now();
        flush();
      });
    if (wait === 0) run();
    else setTimeout(run, wait);
  };
}

/** Longest a frame waits for requests to leave: a request stuck on its way out never freezes the view. */
export const MAX_HOLD_MS = 250;

/**
 * The next frame, once `idle` settles there (no request is on its way out, src/egress/egress.ts), or
 * after MAX_HOLD_MS. A step's end starts the steps that read it: drawn at once, its card's new layout
 * and the next steps' cards came between each request and its leaving, three times the delay bare
 * `fetch` has (P13). Drawn after they have left, the page shows the same a few milliseconds later. By the
 * frame, what the change set off has begun: the requests it starts are counted by then.
 */
export function framesAfter(idle: () => Promise<void>, frame: FrameScheduler = nextFrame): FrameScheduler {
  return (flush) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      flush();
    };
    const timer = setTimeout(go, MAX_HOLD_MS);
    // Idle already: drawn in this frame (the promise settles before the frame is laid out).
    frame(() => void idle().then(go, go));
  };
}

export interface UpdateSchedulers {
  /** When streamed tokens (and reasoning) are drawn. */
  tokens?: FrameScheduler;
  /** When any other change is drawn (the run's end excepted, drawn at once). */
  changes?: FrameScheduler;
}

/**
 * An executor listener that feeds the run view with far fewer rebuilds than events. Every change waits
 * for a frame, and all that arrive before it are drawn in one rebuild, in the order the executor made
 * them: streamed tokens on the `tokens` schedule (a step's latest token event holds the text of all of
 * them), other changes on the `changes` one, the run's end at once with everything still waiting.
 */
export function frameCoalescedUpdates(
  update: (apply: (view: RunView) => RunView) => void,
  schedulers: UpdateSchedulers = {},
): (event: ExecutorEvent) => void {
  const tokens = schedulers.tokens ?? throttledFrames();
  const changes = schedulers.changes ?? nextFrame;
  const queue: ExecutorEvent[] = [];
  // Per step, where its token event waits in `queue` while nothing of that step came after it: the next
  // token replaces it (tokens of different steps touch different steps, so they commute).
  const tokenAt = new Map<number, number>();
  let tokensScheduled = false;
  let changesScheduled = false;
  const flush = () => {
    if (queue.length === 0) return;
    const events = queue.splice(0);
    tokenAt.clear();
    update((view) => events.reduce((v, e) => applyEvent(v, e), view));
  };
  return (event) => {
    const step = 'index' in event ? event.index : undefined;
    // Reasoning streams as fast as the answer does: coalesced the same way.
    if ((event.type === 'step-delta' || event.type === 'step-reasoning') && step !== undefined) {
      const at = tokenAt.get(step);
      if (at !== undefined && queue[at]?.type === event.type) queue[at] = event;
      else {
        tokenAt.set(step, queue.length);
        queue.push(event);
      }
      if (!tokensScheduled) {
        tokensScheduled = true;
        tokens(() => {
          tokensScheduled = false;
          flush();
        });
      }
      return;
    }
    if (step !== undefined) tokenAt.delete(step);
    queue.push(event);
    if (event.type === 'run-done') {
      flush();
      return;
    }
    if (!changesScheduled) {
      changesScheduled = true;
      changes(() => {
        changesScheduled = false;
        flush();
      });
    }
  };
}
