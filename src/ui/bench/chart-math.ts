/** Pure helpers for the bench charts (scales and ticks), kept apart from the components so they can be tested in node. */

/** "Nice" tick values (1, 2, 2.5 or 5 × 10^n steps) from 0 to at least `max`, about `count` of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!Number.isFinite(max) || max <= 0) return [0, 1];
  const rough = max / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  // Rounding keeps 0.1 + 0.2 style noise out of the labels.
  for (let i = 0; ; i++) {
    const value = Number((i * step).toPrecision(12));
    ticks.push(value);
    if (value >= max) break;
  }
  return ticks;
}

/** A linear map from [0, domainMax] onto [rangeStart, rangeEnd]. */
export function linearScale(domainMax: number, rangeStart: number, rangeEnd: number): (v: number) => number {
  const span = domainMax > 0 ? domainMax : 1;
  return (v) => rangeStart + ((rangeEnd - rangeStart) * v) / span;
}

/** Two significant digits in plain decimals: a tick of 2e-7 reads "0.0000002", never "2e-7". */
const axisDigits = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, useGrouping: false });

/** Short dollar labels for an axis: $0, $0.0004, $0.012, $1.5, $0.0000002. */
export function formatAxisDollars(value: number): string {
  if (value === 0) return '$0';
  if (value >= 1) return `$${Number(value.toPrecision(3))}`;
  return `$${axisDigits.format(value)}`;
}

/** Short token labels for an axis: 950, 1.2k, 15k. */
export function formatAxisTokens(value: number): string {
  if (value >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

/** Stacked segments of one bar: each worker's share, in the given worker order, starting where the last ended. */
export function stackSegments(
  byWorker: Record<string, number>,
  order: readonly string[],
): { worker: string; start: number; value: number }[] {
  const workers = [
    ...order.filter((w) => w in byWorker),
    ...Object.keys(byWorker).filter((w) => !order.includes(w)),
  ];
  let start = 0;
  const segments: { worker: string; start: number; value: number }[] = [];
  for (const worker of workers) {
    const value = byWorker[worker] ?? 0;
    if (value <= 0) continue;
    segments.push({ worker, start, value });
    start += value;
  }
  return segments;
}

/** `text` cut to `max` characters with an ellipsis (the full text goes in a tooltip). */
export function truncateLabel(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface PlacedLabel {
  /** Where the text is drawn: `x` is its anchor, `y` its baseline. */
  x: number;
  y: number;
  anchor: 'start' | 'end';
  /** What is drawn (possibly truncated) and the full label. */
  text: string;
  full: string;
  box: Box;
  /** False when no free place was found and the label was put at its default place anyway. */
  free: boolean;
}

export interface LabelMetrics {
  /** Average width of one character of the label font, in SVG units. */
  charWidth: number;
  /** Height of a line of label text. */
  lineHeight: number;
  /** Longer labels are truncated. */
  maxChars: number;
  /** Radius around each point that labels keep clear of. */
  pointRadius: number;
}

const DEFAULT_METRICS: LabelMetrics = { charWidth: 7, lineHeight: 14, maxChars: 24, pointRadius: 6 };

function overlaps(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

function inside(a: Box, bounds: Box): boolean {
  return a.left >= bounds.left && a.right <= bounds.right && a.top >= bounds.top && a.bottom <= bounds.bottom;
}

/**
 * Labels for the points of a scatter chart, each next to its point where it overlaps no other label, no
 * point and stays within `bounds`: it tries right and left of the point, above and below, then further
 * out line by line. Points that share a place (same cost and accuracy) get labels stacked beside them.
 */
export function placePointLabels(
  points: readonly { px: number; py: number; label: string }[],
  bounds: Box,
  metrics: Partial<LabelMetrics> = {},
): PlacedLabel[] {
  const m = { ...DEFAULT_METRICS, ...metrics };
  const ascent = m.lineHeight * 0.8;
  const obstacles: Box[] = points.map((p) => ({
    left: p.px - m.pointRadius,
    right: p.px + m.pointRadius,
    top: p.py - m.pointRadius,
    bottom: p.py + m.pointRadius,
  }));
  const placed: PlacedLabel[] = [];
  for (const point of points) {
    const text = truncateLabel(point.label, m.maxChars);
    const width = text.length * m.charWidth;
    const candidate = (anchor: 'start' | 'end', baseline: number): PlacedLabel => {
      const x = anchor === 'start' ? point.px + m.pointRadius + 3 : point.px - m.pointRadius - 3;
      const left = anchor === 'start' ? x : x - width;
      return {
        x,
        y: baseline,
        anchor,
        text,
        full: point.label,
        box: { left, right: left + width, top: baseline - ascent, bottom: baseline - ascent + m.lineHeight },
        free: true,
      };
    };
    const above = point.py - m.pointRadius - 2;
    const below = point.py + m.pointRadius + ascent + 2;
    const tries: PlacedLabel[] = [];
    for (let line = 0; line < 12; line++) {
      for (const anchor of ['start', 'end'] as const) {
        tries.push(candidate(anchor, above - line * m.lineHeight));
        tries.push(candidate(anchor, below + line * m.lineHeight));
      }
    }
    const free = tries.find(
      (t) =>
        inside(t.box, bounds) &&
        !placed.some((p) => overlaps(p.box, t.box)) &&
        !obstacles.some((o) => overlaps(o, t.box)),
    );
    const fallback = tries.find((t) => inside(t.box, bounds)) ?? tries[0]!;
    placed.push(free ?? { ...fallback, free: false });
  }
  return placed;
}
