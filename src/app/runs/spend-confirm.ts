import { signal } from '@preact/signals';
import type { PlanEstimate } from '../../executor/estimate.ts';
import { overSpendLimit } from '../../executor/spend-limit.ts';
import { formatCost } from '../../shared/format-cost.ts';
import type { Step } from '../../shared/plan/index.ts';
import { formatLimit } from '../price-text.ts';
import type { RunCore } from './run-core.ts';

/** A plan whose estimate is over the spend limit, waiting for the user's OK. */
export interface SpendConfirm {
  runId: string;
  estimate: PlanEstimate;
  limitUsd: number;
  /** The limit this run gets if the user agrees: room for the plan's estimate, twice over. */
  raisedLimitUsd: number;
  /**
   * The plan streams into a run already going (no review): its steps within the limit may be running;
   * declining stops the run, steps done kept. Otherwise declining returns to the plan, unchanged.
   */
  streaming: boolean;
}

/** Twice the estimate, in whole cents up: what a run the user agreed to may spend before it stops. */
export function raisedLimit(estimateUsd: number, limitUsd: number): number {
  return Math.max(limitUsd, Math.ceil(estimateUsd * 2 * 100) / 100);
}

/**
 * The limit a run starts with: the user's, or room for the estimate of a plan over it (which runs only
 * once the user has agreed). Undefined: no limit.
 */
export function runSpendLimit(estimateUsd: number, limitUsd: number | undefined): number | undefined {
  if (limitUsd === undefined) return undefined;
  return overSpendLimit(estimateUsd, limitUsd) ? raisedLimit(estimateUsd, limitUsd) : limitUsd;
}

/** What a run the user declined to let past the limit says, on the run view. */
export function declinedText(estimate: PlanEstimate, limitUsd: number): string {
  return `Stopped before passing your ${formatLimit(limitUsd)} spend limit per run: the plan was estimated at ${formatCost(estimate.cost)}. Steps done are kept.`;
}

export type SpendConfirmation = ReturnType<typeof createSpendConfirm>;

/** The spend confirm: a plan estimated over the user's limit per run waits for their OK. */
export function createSpendConfirm(core: RunCore) {
  const spendConfirm = signal<SpendConfirm | undefined>(undefined);
  let settleSpend: ((ok: boolean) => void) | undefined;

  /**
   * True at once when `estimate` is within the spend limit; else shows the confirm and resolves with the
   * user's answer. A newer question, a cancel or another confirm answers an open one with no.
   */
  function approveSpend(runId: string, estimate: PlanEstimate, streaming: boolean): Promise<boolean> {
    const limitUsd = core.spendLimit();
    if (limitUsd === undefined || !overSpendLimit(estimate.cost, limitUsd)) return Promise.resolve(true);
    settleConfirm(false, false);
    return new Promise((resolve) => {
      settleSpend = resolve;
      spendConfirm.value = {
        runId,
        estimate,
        limitUsd,
        raisedLimitUsd: raisedLimit(estimate.cost, limitUsd),
        streaming,
      };
    });
  }

  /** The user's answer to the spend confirm. */
  function confirmSpend(ok: boolean): void {
    settleConfirm(ok, true);
  }

  /**
   * Closes the confirm with `ok`. A streaming run not let past the limit stops here, before its held steps
   * could look like the whole plan; `byUser` says so on its view (else a cancel or a newer question did).
   */
  function settleConfirm(ok: boolean, byUser: boolean): void {
    const settle = settleSpend;
    const open = spendConfirm.value;
    settleSpend = undefined;
    spendConfirm.value = undefined;
    const handle = core.handle;
    if (open?.streaming && !ok && handle?.runId === open.runId) {
      if (byUser) core.declined.set(open.runId, declinedText(open.estimate, open.limitUsd));
      handle.cancel();
    }
    settle?.(ok);
  }

  /**
   * The streamed steps, held once the plan so far is estimated over the spend limit, until the user agrees
   * (the run's limit is then raised to match) or declines (the run stops, steps done kept).
   */
  async function* withinSpendLimit(
    steps: AsyncIterable<Step>,
    runId: string,
    estimateOf: (steps: readonly Step[]) => PlanEstimate,
  ): AsyncIterable<Step> {
    const sofar: Step[] = [];
    let agreed = false;
    for await (const step of steps) {
      sofar.push(step);
      if (!agreed) {
        const estimate = estimateOf(sofar);
        const limitUsd = core.spendLimit();
        if (limitUsd !== undefined && overSpendLimit(estimate.cost, limitUsd)) {
          if (!(await approveSpend(runId, estimate, true))) return;
          agreed = true;
          core.handle?.setSpendLimit(raisedLimit(estimate.cost, limitUsd));
        }
      }
      yield step;
    }
  }

  return { spendConfirm, approveSpend, confirmSpend, settleConfirm, withinSpendLimit };
}
