/**
 * Items applied in batches, at most once per animation frame, instead of one by one: a streamed token
 * need not rebuild the run view by itself (two steps streaming at once send one every few ms, faster than
 * the view can render). An urgent item is applied at once, after every item pushed before it, so order
 * is kept and state changes (a step starts, ends, the run ends) show without waiting for a frame.
 */
export interface FrameBatch<T> {
  push(item: T): void;
  /** Applies what is waiting now. */
  flush(): void;
}

export type Schedule = (run: () => void) => void;

/** The next animation frame; a timer where there are no frames (a hidden tab still gets them applied). */
const nextFrame: Schedule = (run) => {
  if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible')
    requestAnimationFrame(run);
  else setTimeout(run, 16);
};

export function frameBatch<T>(
  apply: (items: T[]) => void,
  urgent: (item: T) => boolean,
  schedule: Schedule = nextFrame,
): FrameBatch<T> {
  let waiting: T[] = [];
  let scheduled = false;
  const flush = () => {
    if (waiting.length === 0) return;
    const items = waiting;
    waiting = [];
    apply(items);
  };
  return {
    push(item) {
      waiting.push(item);
      if (urgent(item)) {
        flush();
        return;
      }
      if (scheduled) return;
      scheduled = true;
      schedule(() => {
        scheduled = false;
        flush();
      });
    },
    flush,
  };
}
