import type { StepStatus } from '../records/run-types.ts';
import { formatCost } from '../shared/format-cost.ts';
import { totalsOf } from './spend.ts';

/**
 * What a run has spent so far, in US dollars: every request it has sent (`totalsOf`), where a request in
 * flight counts its prompt from the moment it leaves and the output streamed so far as it streams
 * (src/executor/attempt.ts keeps that count, once per piece). So a long answer passes the limit while
 * it streams, not only once it ends.
 */
export function liveSpend(statuses: readonly StepStatus[]): number {
  return totalsOf(statuses).cost;
}

/** Whether `spent` is past the limit (a limit of undefined is none). */
export function overSpendLimit(spent: number, limitUsd: number | undefined): boolean {
  return limitUsd !== undefined && spent > limitUsd;
}

/** Dollars as the message needs them: cents for a limit, enough digits that a spend just past it reads so. */
function usd(n: number): string {
  if (n > 0 && n < 0.01) return formatCost(n);
  return `$${n.toFixed(n < 1 && !Number.isInteger(n * 100) ? 3 : 2)}`;
}

/**
 * What a step says when it goes to a worker with no price under a spend limit: the limit counts only
 * what it can price, so this worker's requests are not counted (their cost reads as unknown).
 */
export function unpricedNotice(workerName: string, limitUsd: number): string {
  return `${workerName} has no price, so its requests are not counted against your ${usd(limitUsd)} spend limit per run (their cost shows as unknown).`;
}

/** What the run says when it stops at the limit: the limit and the spend, in the user's dollars. */
export function spendLimitMessage(limitUsd: number, spent: number): string {
  return `Stopped at your ${usd(limitUsd)} spend limit per run: ${usd(spent)} spent. Steps done are kept; raise the limit in Settings to go further.`;
}
