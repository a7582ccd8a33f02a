/** Small display formatters shared by the screens. */
import type { Estimator } from '../shared/token-estimate.ts';

/** 1.2 s, 850 ms, 2 min 5 s, 1 h 3 min. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  // Each unit rounds to what it shows before it splits, so 119.6 s reads "2 min", not "1 min 60 s".
  const millis = Math.round(ms);
  if (millis < 1000) return `${millis} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const m = Math.floor(seconds / 60);
    const rest = seconds % 60;
    return rest ? `${m} min ${rest} s` : `${m} min`;
  }
  const minutes = Math.round(ms / 60_000);
  const h = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${h} h ${rest} min` : `${h} h`;
}

/** `n` with `digits` decimals, never "-0.00": a value that rounds to zero reads as zero, unsigned. */
export function formatFixed(n: number, digits: number): string {
  const text = n.toFixed(digits);
  return Number(text) === 0 ? (0).toFixed(digits) : text;
}

/** The mark before a count (tokens, cost) the provider did not send and Baton estimated. */
export const ESTIMATED = '≈';

/** What the ≈ means, for a tooltip or a legend: which estimator counted, and why there was a need. */
export function estimateNote(estimator: Estimator | undefined): string {
  return estimator === 'o200k'
    ? `${ESTIMATED} estimated with the o200k tokenizer: the provider sent no usage`
    : `${ESTIMATED} estimated at 4 characters a token (the o200k tokenizer was not loaded): the provider sent no usage`;
}

export function formatTokens(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

let dateTime: Intl.DateTimeFormat | undefined;

/** "Dec 1, 2026, 08:30": one formatter for every call (a fresh `toLocaleString` per row was History's cost). */
export function formatTime(epochMs: number): string {
  dateTime ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return Number.isFinite(epochMs) ? dateTime.format(epochMs) : '—';
}
