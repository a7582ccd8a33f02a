import { contextWindowOf } from '../providers/context-windows.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/**
 * How much of a thread's earlier turns a worker is sent with each step of a follow-up (Settings →
 * Planning). Automatic: an eighth of the worker's context window, capped, since every step pays for its
 * history in input tokens; a fixed number when the window is not known (a custom endpoint).
 */
export interface HistoryPrefs {
  /** Tokens of history per step; null is automatic. */
  tokens: number | null;
}

export const HISTORY_WINDOW_SHARE = 1 / 8;
/** The automatic budget's ceiling: 16,000 tokens a step is already a long conversation to pay for each time. */
export const HISTORY_MAX_AUTO_TOKENS = 16_000;
/** The automatic budget when the worker's window is not known. */
export const HISTORY_UNKNOWN_WINDOW_TOKENS = 4_000;

export function readHistoryPrefs(raw: string | null | undefined): HistoryPrefs {
  try {
    const tokens = raw ? (JSON.parse(raw) as Partial<HistoryPrefs> | null)?.tokens : undefined;
    if (typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0) return { tokens };
  } catch {
    // Not JSON: automatic.
  }
  return { tokens: null };
}

/** The history budget of `worker` in tokens, under the user's setting. */
export function historyBudget(worker: Pick<WorkerSpec, 'model'>, prefs: HistoryPrefs): number {
  if (prefs.tokens !== null) return prefs.tokens;
  const window = contextWindowOf(worker.model);
  if (window === undefined) return HISTORY_UNKNOWN_WINDOW_TOKENS;
  return Math.min(HISTORY_MAX_AUTO_TOKENS, Math.floor(window * HISTORY_WINDOW_SHARE));
}

/** What the setting says, in words (Settings). */
export function historyBudgetText(prefs: HistoryPrefs): string {
  return prefs.tokens === null
    ? `Automatic: an eighth of each worker's context window, at most ${HISTORY_MAX_AUTO_TOKENS.toLocaleString('en-US')} tokens (${HISTORY_UNKNOWN_WINDOW_TOKENS.toLocaleString('en-US')} when the window is not known).`
    : `${prefs.tokens.toLocaleString('en-US')} tokens of earlier turns per step, for every worker.`;
}
