/**
 * When the run view is drawn: the one home of the draw policy.
 *
 * - `currentRun` takes every change at once; what decides (busy, the review, actions) reads it. Streamed
 *   tokens reach it at most about seven times a second (`frameCoalescedUpdates`, `throttledFrames`), every
 *   other executor event at once, with the tokens still waiting.
 * - A step's streamed text is drawn in place: its text signal (`createStepStreams`), set as the view is
 *   drawn, is bound in text position in the step's card, where the running step shows it as plain text:
 *   a draw changes one text node. Its markdown is rendered once, when the step has ended.
 * - A step card is rendered again only when its step's record changes (each event replaces one step's),
 *   and the graph only when a step is added or changes worker or state.
 * - The page draws `drawnRun`, which follows `currentRun` once the requests a change set off have left
 *   (`afterRequestsLeave`), at most `MAX_HOLD_MS` later: no request waits for drawing, and changes that
 *   come before a draw are drawn together, as the latest.
 */
import { batch, effect, type ReadonlySignal, type Signal, signal } from '@preact/signals';
import type { ExecutorEvent } from '../../executor/types.ts';
import type { StepStatus } from '../../records/run-types.ts';
import type { SendingServices } from '../services.ts';
import { applyEvent, type RunView } from './run-model.ts';

/** Runs `flush` once, later. */
export type FrameScheduler = (flush: () => void) => void;

/**
 * At least `ms` after the last flush began (at once when that time has passed): streamed text is drawn about
 * seven times a second, not sixty. Each draw re-lays and repaints the step's card (and, without a GPU,
 * rasterises it on the CPU): drawing every frame made the page's main thread seven times busier than the
 * requests it shows, for text no one reads faster than this. Ten times a second, each draw (about 6.5 ms
 * here, GPU-less) still kept the page's main thread about 1.5 times as busy as bare `fetch` reading the
 * same answers; at 150 ms, about 1.25 times. A timer, not an animation frame: the view
 * is drawn once the requests have left (`afterRequestsLeave`), in a task after this one, so a frame asked
 * for here was a frame of its own, drawn for nothing.
 */
export function throttledFrames(ms = 150, now: () => number = () => performance.now()): FrameScheduler {
  let last = Number.NEGATIVE_INFINITY;
  return (flush) => {
    const wait = last + ms - now();
    // Streamed text comes a window at a time (src/executor/stream-batches.ts): a piece that comes once
    // the interval has passed is applied at once, as any other change is, without a timer of its own.
    if (wait <= 0) {
      last = now();
      flush();
      return;
    }
    setTimeout(() => {
      last = now();
      flush();
    }, wait);
  };
}

/**
 * Longest the run view waits for requests to leave before it draws: a request stuck on its way out never
 * freezes the view, and a state that lasts this long is always drawn.
 */
export const MAX_HOLD_MS = 50;

/**
 * A task later, once `idle` settles (no request is on its way out, src/egress/egress.ts), or `holdMs`
 * after it was asked, whichever comes first. Drawn in the same task as the change, the run view's render
 * and layout came between a step's end and the request of the step that reads it, and between Run and
 * the first request: they tripled the time bare `fetch` takes there. Drawn once those requests
 * have left, the page shows the same a few milliseconds later. A change that set no request off is drawn
 * in the next task.
 */
export function afterRequestsLeave(idle: () => Promise<void>, holdMs = MAX_HOLD_MS): FrameScheduler {
  return (flush) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      flush();
    };
    const timer = setTimeout(go, holdMs);
    // A task later: by then what the change set off (the next step's request) has reached egress.
    setTimeout(() => void idle().then(go, go), 0);
  };
}

/**
 * An executor listener that feeds the run view with far fewer rebuilds than events: a streamed token
 * waits for the next frame, and every token of a step that arrives before it is drawn in one rebuild (the
 * last token's snapshot holds the text of all of them). Any other event is applied at once, together with
 * the tokens still waiting, so the order of a step's changes stays as the executor made them.
 */
export function frameCoalescedUpdates(
  update: (apply: (view: RunView) => RunView) => void,
  schedule: FrameScheduler = throttledFrames(),
  applied: (events: readonly ExecutorEvent[]) => void = () => {},
): (event: ExecutorEvent) => void {
  // Per step, its latest token event: tokens of different steps touch different steps, so they commute.
  const waiting = new Map<number, ExecutorEvent>();
  let scheduled = false;
  const take = (): ExecutorEvent[] => {
    const events = [...waiting.values()];
    waiting.clear();
    return events;
  };
  const flush = () => {
    scheduled = false;
    if (waiting.size === 0) return;
    const events = take();
    applied(events);
    update((view) => events.reduce((v, e) => applyEvent(v, e), view));
  };
  return (event) => {
    // Reasoning streams as fast as the answer does: coalesced the same way.
    if (event.type === 'step-delta' || event.type === 'step-reasoning') {
      waiting.set(event.index, event);
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
      return;
    }
    const events = [...take(), event];
    applied(events);
    update((view) => events.reduce((v, e) => applyEvent(v, e), view));
  };
}

/** A running step's streamed answer and reasoning, as they are now. */
export interface StepStream {
  text: ReadonlySignal<string>;
  reasoning: ReadonlySignal<string>;
}

/**
 * The live run's streamed text, one pair of signals per step: each step event's snapshot is kept (`show`),
 * and the signals are set from the latest of each step when the view is drawn (`draw`; a signal that holds
 * the same text stays quiet). Set with every update instead, a text signal changed the page between its
 * draws: a frame of its own. A new run's events start afresh; `of` gives nothing for a run that is not the
 * live one (a stored run shows its steps' stored text).
 */
export function createStepStreams() {
  let liveRun: string | undefined;
  const steps = new Map<number, { text: Signal<string>; reasoning: Signal<string> }>();
  const shown = new Map<number, StepStatus>();
  return {
    of(runId: string, index: number): StepStream | undefined {
      return runId === liveRun ? steps.get(index) : undefined;
    },
    /** The step's text as the executor's snapshot holds it, drawn with the next draw. */
    show(runId: string, status: StepStatus): void {
      if (runId !== liveRun) {
        liveRun = runId;
        steps.clear();
        shown.clear();
      }
      shown.set(status.index, status);
    },
    /** Sets each step's signals to the latest text shown. */
    draw(): void {
      for (const status of shown.values()) {
        const stream = steps.get(status.index);
        if (!stream) {
          steps.set(status.index, { text: signal(status.text), reasoning: signal(status.reasoning ?? '') });
          continue;
        }
        stream.text.value = status.text;
        stream.reasoning.value = status.reasoning ?? '';
      }
      shown.clear();
    },
  };
}

export type StepStreams = ReturnType<typeof createStepStreams>;

/**
 * The run view's drawing for one set of runs: `drawnRun` follows `currentRun` once no run is being started
 * and no request is on its way out. `starts` registers a run being started (unlock, store, transports);
 * `egress` is the services' egress, which also gives the drawing egress's `idle` once a run opens it.
 */
export function createRunDrawing(currentRun: Signal<RunView | undefined>, egress: SendingServices['egress']) {
  /** Runs being started: the view draws once they have, and their first requests have left. */
  const starting = new Set<Promise<unknown>>();
  // Egress's "no request on its way out", once a run has opened egress.
  let requestsLeft: (() => Promise<void>) | undefined;

  function starts<T>(started: Promise<T>): Promise<T> {
    starting.add(started);
    void started.then(
      () => starting.delete(started),
      () => starting.delete(started),
    );
    return started;
  }

  async function egressForRuns(): ReturnType<SendingServices['egress']> {
    const opened = await egress();
    requestsLeft ??= opened.idle?.bind(opened);
    return opened;
  }

  /** Settles once no run is being started and no request is on its way out: the run view may draw. */
  async function requestsHaveLeft(): Promise<void> {
    if (starting.size > 0) {
      await Promise.allSettled([...starting]);
      // What a start set off (each first step's request) reaches egress in the microtasks after it.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await requestsLeft?.();
  }

  const afterRequestsLeft = afterRequestsLeave(requestsHaveLeft);
  const drawnRun = signal<RunView | undefined>(currentRun.peek());
  const streams = createStepStreams();
  let drawPending = false;
  effect(() => {
    currentRun.value;
    if (drawPending) return;
    drawPending = true;
    afterRequestsLeft(() => {
      drawPending = false;
      // One change of the page: the view and the text it streams, rendered together.
      batch(() => {
        streams.draw();
        drawnRun.value = currentRun.peek();
      });
    });
  });

  return { drawnRun, streams, starting, starts, egress: egressForRuns };
}
