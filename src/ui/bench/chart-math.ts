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

/** Short dollar labels for an axis: $0, $0.0004, $0.012, $1.5. */
export function formatAxisDollars(value: number): string {
  if (value === 0) return '$0';
  if (value >= 1) return `$${Number(value.toPrecision(3))}`;
  return `$${Number(value.toPrecision(2))}`;
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
