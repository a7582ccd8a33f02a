/**
 * A run's time is the time something of it was under way: planning, and steps running. A run left
 * unfinished by a reload and resumed hours later did nothing in between, so those hours are neither its
 * time nor room on its timeline.
 */

export type Span = readonly [start: number, end: number];

/** The spans merged where they touch or overlap, in order. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter(([start, end]) => end >= start).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** How long at least one of the spans was under way. */
export function activeMs(spans: readonly Span[]): number {
  return mergeSpans(spans).reduce((sum, [start, end]) => sum + (end - start), 0);
}

/** A stretch with nothing under way, cut out of a timeline. */
export interface TimelineBreak {
  /** Where the cut is on the axis, in ms of active time from the axis' start. */
  at: number;
  /** How long nothing was under way there. */
  idleMs: number;
}

/**
 * A time axis over `spans` with every idle stretch longer than `longestGapMs` cut out: `position(t)` is `t`
 * in ms from the first span's start, less the cut stretches before it; `span` is the axis' length.
 */
export function activeAxis(
  spans: readonly Span[],
  longestGapMs: number,
): { position: (t: number) => number; span: number; breaks: TimelineBreak[] } {
  const merged = mergeSpans(spans);
  const origin = merged[0]?.[0] ?? 0;
  const cuts: { from: number; to: number; removed: number }[] = [];
  let removed = 0;
  for (let i = 1; i < merged.length; i++) {
    const gap = merged[i]![0] - merged[i - 1]![1];
    if (gap > longestGapMs) {
      removed += gap;
      cuts.push({ from: merged[i - 1]![1], to: merged[i]![0], removed });
    }
  }
  const position = (t: number) => {
    let before = 0;
    for (const cut of cuts) {
      if (t >= cut.to) before = cut.removed;
      else if (t > cut.from) return cut.from - origin - (cut.removed - (cut.to - cut.from));
    }
    return t - origin - before;
  };
  const end = merged.at(-1)?.[1] ?? origin;
  return {
    position,
    span: position(end),
    breaks: cuts.map((cut) => ({ at: position(cut.to), idleMs: cut.to - cut.from })),
  };
}
