/** Small statistics for benchmarks. */

import { quantile as interpolatedQuantile } from '../src/evaluation/stats.ts';

/** The q-quantile (0..1) of the samples, by linear interpolation; a benchmark with no samples is a bug. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('quantile of no samples');
  return interpolatedQuantile(samples, Math.min(1, Math.max(0, q)));
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** Runs `fn` `warmup` times unmeasured, then `runs` times one after another; returns its results. */
export async function sample<T>(runs: number, warmup: number, fn: () => Promise<T>): Promise<T[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: T[] = [];
  for (let i = 0; i < runs; i++) out.push(await fn());
  return out;
}

/** Rounds for display: 3 significant digits at most. */
export function round(value: number): number {
  return Number(value.toPrecision(3));
}
