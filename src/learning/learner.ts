/**
 * What auto mode learned, kept current one outcome at a time: the bandit state (src/learning/bandit.ts)
 * over an imported base, and per strategy and question category the last outcomes, which the chooser sees
 * as neighbours. An outcome marked after the others costs one bandit update, whatever the number before it:
 * the bench adds one per item, and re-reading and re-learning every past outcome for each made a
 * 1,000-item bench quadratic. What changes the past (a re-mark, a removal, an outcome older than the
 * newest, a new base) is learned again in one pass over the outcomes, linear in their number.
 * Pure: no storage, no signals.
 */
import { type BanditState, update } from './bandit.ts';
import { categoryOf, type NeighbourOutcomes } from './features.ts';
import type { Outcome, StrategyId } from './outcome.ts';

/** How many similar past outcomes per strategy the chooser sees (same category, newest first). */
export const NEIGHBOURS = 10;

const windowKey = (strategy: StrategyId, question: string) => `${strategy}\u0000${categoryOf(question)}`;

/** The outcomes of one window as the chooser's neighbour figures. */
function figures(window: readonly Outcome[] | undefined): NeighbourOutcomes | undefined {
  if (!window || window.length === 0) return undefined;
  let good = 0;
  let cost = 0;
  for (const o of window) {
    if (o.good) good++;
    cost += o.costUsd;
  }
  return { good, total: window.length, meanCostUsd: cost / window.length };
}

export interface Learner {
  /** The state learned: the base, and every outcome marked after `since` on top of it. */
  readonly state: BanditState;
  /** The last NEIGHBOURS outcomes of `question`'s category with `strategy`, as the chooser sees them. */
  neighbours(question: string, strategy: StrategyId): NeighbourOutcomes | undefined;
  /** Adds or replaces (same run id) one outcome. */
  put(outcome: Outcome): void;
  remove(runId: string): void;
  /** Forgets every outcome and learns these instead (oldest first, as the store lists them). */
  replaceAll(outcomes: readonly Outcome[]): void;
  /** A new base (an import, a reset): outcomes marked after `since` are learned on top of it. */
  setBase(base: BanditState, since: number): void;
}

export function createLearner(base: BanditState, since: number): Learner {
  let state = base;
  /** Oldest first: the order the neighbours of each outcome were taken in. */
  let outcomes: Outcome[] = [];
  const byRun = new Map<string, Outcome>();
  let windows = new Map<string, Outcome[]>();

  /** Learns one outcome on top of those before it: one update, and its place in its window. */
  function learn(o: Outcome): void {
    const key = windowKey(o.strategy, o.question);
    const window = windows.get(key);
    if (o.at > since) state = update(state, o.question, o.strategy, figures(window), o.good, o.costUsd);
    if (!window) windows.set(key, [o]);
    else {
      window.push(o);
      if (window.length > NEIGHBOURS) window.shift();
    }
  }

  function relearn(): void {
    state = base;
    windows = new Map();
    for (const o of outcomes) learn(o);
  }

  return {
    get state() {
      return state;
    },
    neighbours(question, strategy) {
      return figures(windows.get(windowKey(strategy, question)));
    },
    put(outcome) {
      const last = outcomes.at(-1);
      const earlier = byRun.get(outcome.runId);
      byRun.set(outcome.runId, outcome);
      if (!earlier && (!last || outcome.at >= last.at)) {
        outcomes.push(outcome);
        learn(outcome);
        return;
      }
      // It changes what came after it: put it in its place by time, then learn everything again.
      if (earlier) outcomes.splice(outcomes.indexOf(earlier), 1);
      let at = outcomes.length;
      while (at > 0 && outcomes[at - 1]!.at > outcome.at) at--;
      outcomes.splice(at, 0, outcome);
      relearn();
    },
    remove(runId) {
      const earlier = byRun.get(runId);
      if (!earlier) return;
      byRun.delete(runId);
      outcomes.splice(outcomes.indexOf(earlier), 1);
      relearn();
    },
    replaceAll(list) {
      outcomes = [...list];
      byRun.clear();
      for (const o of outcomes) byRun.set(o.runId, o);
      relearn();
    },
    setBase(newBase, newSince) {
      base = newBase;
      since = newSince;
      relearn();
    },
  };
}
