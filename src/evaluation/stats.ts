/** The q-quantile (0..1) by linear interpolation between closest ranks; NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * The Wilson score interval for `successes` of `n` (95% by default): unlike the usual p ± z·√(p(1−p)/n) it
 * stays inside [0, 1] and is honest at 0 or n successes and for small n, which is what a bench of 20–100
 * items has. Undefined for n = 0.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval | undefined {
  if (n <= 0) return undefined;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Two systems scored on the same items: how often each was right where the other was wrong. */
export interface PairedComparison {
  items: number;
  /** Right for the first, wrong for the second. */
  wins: number;
  /** Wrong for the first, right for the second. */
  losses: number;
  /** Accuracy of the first minus accuracy of the second, on these items. */
  difference: number;
  /** 95% interval for the difference (Newcombe's method 10, built on Wilson intervals). */
  interval: Interval;
  /** Two-sided exact McNemar p-value: how likely a split of wins and losses this uneven is by chance. */
  pValue: number;
}

/** The two-sided exact binomial (p = 1/2) test on the discordant pairs: McNemar's exact test. */
export function mcnemarExact(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  // P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space so large n does not overflow.
  let logChoose = 0;
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logChoose - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

/**
 * Compares two systems on paired outcomes (`first[i]` and `second[i]` are the same item). The interval is
 * Newcombe's (1998) method 10 for a difference of paired proportions: it accounts for the pairing, so
 * "one system lost the same items the other did" is not mistaken for noise.
 */
export function comparePaired(first: readonly boolean[], second: readonly boolean[]): PairedComparison {
  if (first.length !== second.length) throw new Error('paired outcomes must have the same length');
  const n = first.length;
  let both = 0;
  let wins = 0;
  let losses = 0;
  for (let i = 0; i < n; i++) {
    if (first[i] && second[i]) both++;
    else if (first[i]) wins++;
    else if (second[i]) losses++;
  }
  const neither = n - both - wins - losses;
  if (n === 0) return { items: 0, wins, losses, difference: 0, interval: { low: -1, high: 1 }, pValue: 1 };
  const p1 = (both + wins) / n;
  const p2 = (both + losses) / n;
  const difference = p1 - p2;
  const w1 = wilsonInterval(both + wins, n)!;
  const w2 = wilsonInterval(both + losses, n)!;
  const denominator = Math.sqrt((both + wins) * (losses + neither) * (both + losses) * (wins + neither));
  const phi = denominator === 0 ? 0 : (both * neither - wins * losses) / denominator;
  const dl = p1 - w1.low;
  const ul = w2.high - p2;
  const du = w1.high - p1;
  const uu = p2 - w2.low;
  const low = difference - Math.sqrt(Math.max(0, dl * dl - 2 * phi * dl * ul + ul * ul));
  const high = difference + Math.sqrt(Math.max(0, du * du - 2 * phi * du * uu + uu * uu));
  return {
    items: n,
    wins,
    losses,
    difference,
    interval: { low: Math.max(-1, low), high: Math.min(1, high) },
    pValue: mcnemarExact(wins, losses),
  };
}
