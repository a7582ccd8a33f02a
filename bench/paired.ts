// Two sides measured against each other in one run (the app and a bare `fetch` doing the same work), and
// the words a result's note gives them, so benchmarks that compare alike report alike.
import { availableParallelism, loadavg } from 'node:os';
import { quantile, round } from './stats.ts';

export type Side = 'app' | 'bare';

export interface Paired {
  app: number[];
  bare: number[];
  /** Each round's app ÷ bare. */
  ratios: number[];
  /** The machine's one-minute load average as the rounds ended. */
  load: number;
}

/**
 * `rounds` rounds of both sides, the order swapped each round so that a slow moment of a shared machine
 * falls on both; `measure` gives one side's figure (ms).
 */
export async function alternate(rounds: number, measure: (side: Side) => Promise<number>): Promise<Paired> {
  const paired: Paired = { app: [], bare: [], ratios: [], load: 0 };
  for (let r = 0; r < rounds; r++) {
    const order: Side[] = r % 2 === 0 ? ['app', 'bare'] : ['bare', 'app'];
    const ms: Partial<Record<Side, number>> = {};
    for (const side of order) ms[side] = await measure(side);
    paired.app.push(ms.app as number);
    paired.bare.push(ms.bare as number);
    paired.ratios.push((ms.app as number) / (ms.bare as number));
  }
  paired.load = loadavg()[0] ?? 0;
  return paired;
}

/** How busy the machine was: wall times on a shared machine are read against it. */
export function loadNote(load = loadavg()[0] ?? 0): string {
  return `load average ${round(load)} on ${availableParallelism()} cores`;
}

/** A paired ratio's note: its rounds and spread, then `details` (the figures it was made from), then the load. */
export function pairedNote(m: Paired, ...details: string[]): string {
  return [
    `median of ${m.ratios.length} alternating rounds (p90 ${quantile(m.ratios, 0.9).toFixed(3)})`,
    ...details,
    loadNote(m.load),
  ].join('; ');
}
