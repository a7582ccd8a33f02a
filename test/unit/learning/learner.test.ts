import { describe, expect, it } from 'vitest';
import { createBanditState } from '../../../src/learning/bandit.ts';
import { createLearner, NEIGHBOURS } from '../../../src/learning/learner.ts';
import type { Outcome } from '../../../src/learning/outcome.ts';

const QUESTIONS = ['Who wrote Hamlet?', 'Solve 2x + 3 = 7', 'Fix the bug in this python function'];
const STRATEGIES = ['conductor', 'router', 'single:w1'];

function outcome(i: number, overrides: Partial<Outcome> = {}): Outcome {
  return {
    runId: `run-${i}`,
    question: QUESTIONS[i % QUESTIONS.length]!,
    strategy: STRATEGIES[Math.floor(i / 3) % STRATEGIES.length]!,
    workerIds: ['w1'],
    good: i % 4 !== 0,
    source: 'bench',
    costUsd: 0.001 * (i % 5),
    latencyMs: 10,
    at: 1000 + i,
    ...overrides,
  };
}

/** What learning `outcomes` in one pass gives: the reference every other way of getting there must match. */
function learnedAtOnce(outcomes: Outcome[], since = 0) {
  const learner = createLearner(createBanditState(), since);
  learner.replaceAll(outcomes);
  return learner;
}

describe('the learner', () => {
  const all = Array.from({ length: 60 }, (_, i) => outcome(i));

  it('learns outcomes one at a time into the state it learns them in at once', () => {
    const learner = createLearner(createBanditState(), 0);
    for (const o of all) learner.put(o);
    expect(learner.state).toEqual(learnedAtOnce(all).state);
    expect(learner.neighbours('Who wrote Emma?', 'conductor')).toEqual(
      learnedAtOnce(all).neighbours('Who wrote Emma?', 'conductor'),
    );
  });

  it('shows the chooser the last outcomes of the same category and strategy only', () => {
    const learner = learnedAtOnce(all);
    const facts = all.filter((o) => o.strategy === 'router' && o.question === QUESTIONS[0]);
    const last = facts.slice(-NEIGHBOURS);
    expect(learner.neighbours('Who wrote Emma?', 'router')).toEqual({
      good: last.filter((o) => o.good).length,
      total: last.length,
      meanCostUsd: last.reduce((s, o) => s + o.costUsd, 0) / last.length,
    });
    expect(learner.neighbours('Who wrote Emma?', 'single:w9')).toBeUndefined();
  });

  it('puts a re-mark, a late outcome and a removal in their place, as if learned in order', () => {
    const learner = createLearner(createBanditState(), 0);
    for (const o of all) learner.put(o);
    const remarked = { ...all[10]!, good: !all[10]!.good, at: 5000 };
    learner.put(remarked);
    const late = outcome(99, { at: 1020.5 });
    learner.put(late);
    learner.remove('run-30');
    const expected = [
      ...all.filter((o) => o.runId !== 'run-10' && o.runId !== 'run-30'),
      remarked,
      late,
    ].sort((a, b) => a.at - b.at);
    expect(learner.state).toEqual(learnedAtOnce(expected).state);
  });

  it('learns only what was marked after an imported base, on top of it', () => {
    const base = learnedAtOnce(all.slice(0, 30)).state;
    const learner = createLearner(createBanditState(), 0);
    for (const o of all) learner.put(o);
    learner.setBase(base, all[29]!.at);
    const onTop = createLearner(base, all[29]!.at);
    onTop.replaceAll(all);
    expect(learner.state).toEqual(onTop.state);
    expect(learner.state.categories.facts?.conductor?.tries).toBe(
      (base.categories.facts?.conductor?.tries ?? 0) +
        all.slice(30).filter((o) => o.strategy === 'conductor' && o.question === QUESTIONS[0]).length,
    );
  });
});
