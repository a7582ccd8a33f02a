import { effect, signal } from '@preact/signals';
import { readWholeFileTokens } from '../attachments/whole-or-passages.ts';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_STEPS } from '../shared/plan/index.ts';
import { readHistoryPrefs } from './history-budget.ts';
import { storedValue } from './local-store.ts';
import type { DirectChoice } from './runs/run-model.ts';

/** Planning limits the user can change (Settings → Conductor), kept in localStorage. */
export interface PlanPrefs {
  /** Most steps in a plan (1..5). */
  maxSteps: number;
  /** Levels of `self` recursion: the conductor checking and correcting its workflow (0..2). */
  maxDepth: number;
}

const KEY = 'baton.planPrefs';
const DEFAULTS: PlanPrefs = { maxSteps: DEFAULT_MAX_STEPS, maxDepth: DEFAULT_MAX_DEPTH };

function clamp(n: unknown, lo: number, hi: number, fallback: number): number {
  return typeof n === 'number' && Number.isInteger(n) ? Math.min(hi, Math.max(lo, n)) : fallback;
}

export function readPrefs(raw: string | null | undefined): PlanPrefs {
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<PlanPrefs>) : {};
    return {
      maxSteps: clamp(parsed.maxSteps, 1, DEFAULT_MAX_STEPS, DEFAULTS.maxSteps),
      maxDepth: clamp(parsed.maxDepth, 0, DEFAULT_MAX_DEPTH, DEFAULTS.maxDepth),
    };
  } catch {
    return { ...DEFAULTS };
  }
}

/** Choices of the Ask screen that a user expects to find again on the next visit. */
export interface AskPrefs {
  /** "Review the plan before it runs". */
  reviewPlan: boolean;
  /** Direct mode's last choice: the worker, and whether another may answer (its id, never sent). */
  direct?: DirectChoice;
}

const ASK_KEY = 'baton.askPrefs';

export function readAskPrefs(raw: string | null | undefined): AskPrefs {
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<AskPrefs> | null) : undefined;
    const direct = parsed?.direct;
    return {
      reviewPlan: parsed?.reviewPlan === true,
      ...(typeof direct?.worker === 'string'
        ? { direct: { worker: direct.worker, ...(direct.failover === true ? { failover: true } : {}) } }
        : {}),
    };
  } catch {
    return { reviewPlan: false };
  }
}

/** How the conversation is shown (Settings → Planning). */
export interface ViewPrefs {
  /** Each answer's plan, graph, timeline, steps, costs and ledger rows open, not behind its quiet line. */
  stepsOpen: boolean;
}

export function readViewPrefs(raw: string | null | undefined): ViewPrefs {
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<ViewPrefs> | null) : undefined;
    return { stepsOpen: parsed?.stepsOpen === true };
  } catch {
    return { stepsOpen: false };
  }
}

/** How runs go on when a worker fails them (Settings → Planning). */
export interface RunPrefs {
  /**
   * A step whose worker stays unavailable after its retries runs again on the best other worker of the
   * pool (src/executor/failover.ts). On by default: a pool is there to be replaceable.
   */
  failover: boolean;
}

const RUN_KEY = 'baton.runPrefs';

export function readRunPrefs(raw: string | null | undefined): RunPrefs {
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<RunPrefs> | null) : undefined;
    return { failover: parsed?.failover !== false };
  } catch {
    return { failover: true };
  }
}

/** What one run may spend (Settings → Spending), kept in localStorage. */
export interface SpendPrefs {
  /** US dollars one run may spend; null is no limit. */
  runLimitUsd: number | null;
}

export const DEFAULT_RUN_SPEND_LIMIT_USD = 0.5;
const SPEND_KEY = 'baton.spendPrefs';

/** A stored limit when it is a number of dollars (0 or more) or null (no limit); else the default. */
export function readSpendPrefs(raw: string | null | undefined): SpendPrefs {
  try {
    const limit = raw ? (JSON.parse(raw) as Partial<SpendPrefs> | null)?.runLimitUsd : undefined;
    if (limit === null) return { runLimitUsd: null };
    if (typeof limit === 'number' && Number.isFinite(limit) && limit >= 0) return { runLimitUsd: limit };
  } catch {
    // Not JSON: the default.
  }
  return { runLimitUsd: DEFAULT_RUN_SPEND_LIMIT_USD };
}

/**
 * What the user typed as the limit: dollars (a leading `$` allowed), or empty for no limit. Anything else
 * is an error that says what is expected, and the stored limit is kept.
 */
export function parseSpendLimit(
  text: string,
): { ok: true; limit: number | null } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/^\$\s*/, '');
  if (trimmed === '') return { ok: true, limit: null };
  const limit = Number(trimmed);
  if (!/^\d*\.?\d+$|^\d+\.$/.test(trimmed) || !Number.isFinite(limit)) {
    return {
      ok: false,
      error: `“${text.trim()}” is not an amount of dollars: write it like 0.50, or leave it empty for no limit.`,
    };
  }
  return { ok: true, limit };
}

export interface VaultPrefs {
  /** Minutes without use before an unlocked vault locks itself; absent: it stays unlocked until the tab closes. */
  lockAfterMinutes?: number;
}

export function readVaultPrefs(raw: string | null | undefined): VaultPrefs {
  try {
    const minutes = (JSON.parse(raw ?? '{}') as { lockAfterMinutes?: unknown }).lockAfterMinutes;
    return typeof minutes === 'number' && Number.isInteger(minutes) && minutes > 0
      ? { lockAfterMinutes: minutes }
      : {};
  } catch {
    return {};
  }
}

/**
 * The planning limits, spend limit, failover, Ask choices and whether the start screen was passed, for one app state: read from localStorage when it is built, and
 * written back on every change.
 */
export function createPrefs() {
  const storedPlanPrefs = storedValue(KEY, readPrefs);
  const planPrefs = signal<PlanPrefs>(storedPlanPrefs.read());
  effect(() => storedPlanPrefs.write(planPrefs.value));

  const storedAskPrefs = storedValue(ASK_KEY, readAskPrefs);
  const askPrefs = signal<AskPrefs>(storedAskPrefs.read());
  effect(() => storedAskPrefs.write(askPrefs.value));

  const storedSpendPrefs = storedValue(SPEND_KEY, readSpendPrefs);
  const spendPrefs = signal<SpendPrefs>(storedSpendPrefs.read());
  effect(() => storedSpendPrefs.write(spendPrefs.value));

  // How much of a thread's earlier turns each step of a follow-up is sent (src/app/history-budget.ts).
  const storedHistoryPrefs = storedValue('baton.historyPrefs', readHistoryPrefs);
  const historyPrefs = signal(storedHistoryPrefs.read());
  effect(() => storedHistoryPrefs.write(historyPrefs.value));

  // Past this many tokens a file nobody chose for goes as passages (src/attachments/whole-or-passages.ts).
  const storedWholeFile = storedValue('baton.wholeFileTokens', readWholeFileTokens, String);
  const wholeFileTokens = signal(storedWholeFile.read());
  effect(() => storedWholeFile.write(wholeFileTokens.value));

  // Minutes without use before the vault locks itself (src/app/idle-lock.ts); absent: never.
  const storedVaultPrefs = storedValue('baton.vaultPrefs', readVaultPrefs);
  const vaultPrefs = signal<VaultPrefs>(storedVaultPrefs.read());
  effect(() => storedVaultPrefs.write(vaultPrefs.value));

  const storedViewPrefs = storedValue('baton.viewPrefs', readViewPrefs);
  const viewPrefs = signal<ViewPrefs>(storedViewPrefs.read());
  effect(() => storedViewPrefs.write(viewPrefs.value));

  const storedRunPrefs = storedValue(RUN_KEY, readRunPrefs);
  const runPrefs = signal<RunPrefs>(storedRunPrefs.read());
  effect(() => storedRunPrefs.write(runPrefs.value));

  // Without storage the start screen simply shows again next time.
  const onboarded = storedValue<boolean>(
    'baton.onboarded',
    (raw) => raw === '1',
    (on) => (on ? '1' : '0'),
  );
  /** Whether the start screen has been passed once (later visits open on Ask). */
  const isOnboarded = (): boolean => onboarded.read();
  const markOnboarded = (): void => onboarded.write(true);

  return {
    planPrefs,
    askPrefs,
    runPrefs,
    spendPrefs,
    historyPrefs,
    wholeFileTokens,
    vaultPrefs,
    viewPrefs,
    isOnboarded,
    markOnboarded,
  };
}

export type AppPrefs = ReturnType<typeof createPrefs>;
