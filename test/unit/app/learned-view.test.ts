import { describe, expect, it } from 'vitest';
import { categoryName, meanRewardText, strategyName } from '../../../src/app/learned-view.ts';
import { createBanditState, lambdaOf, update } from '../../../src/learning/bandit.ts';

describe('What Baton learned, in words', () => {
  it("names every strategy the bench feeds it, and one worker by the user's label", () => {
    const labels = { w1: 'Parrot' };
    expect(strategyName('conductor', labels)).toBe('Conductor');
    expect(strategyName('router', labels)).toBe('Router');
    expect(strategyName('moa', labels)).toBe('Mixture-of-Agents');
    expect(strategyName('pipeline', labels)).toBe('Plan → execute → verify');
    expect(strategyName('self-consistency', labels)).toBe('Self-consistency');
    expect(strategyName('single:w1', labels)).toBe('Parrot (directly)');
    // A worker no longer in the pool keeps its id: there is no other name for it.
    expect(strategyName('single:w9', labels)).toBe('w9 (directly)');
  });

  it('capitalises the kinds of question', () => {
    expect(['code', 'math', 'writing', 'analysis', 'facts', 'other'].map(categoryName)).toEqual([
      'Code',
      'Math',
      'Writing',
      'Analysis',
      'Facts',
      'Other',
    ]);
  });

  it('shows a mean reward that rounds to zero as 0.00, never -0.00', () => {
    // A bench item answered wrong for a millionth of a dollar: its mean reward is a hair below zero.
    const state = update(createBanditState(), 'What is 2 + 2?', 'moa', undefined, false, 0.000_001);
    const stats = state.categories.math!.moa!;
    const lambda = lambdaOf(0.5);
    expect((stats.good - lambda * stats.costUsd) / stats.tries).toBeLessThan(0);
    expect(meanRewardText(stats, lambda)).toBe('0.00');
    expect(meanRewardText({ tries: 4, good: 3, costUsd: 0.016 }, 50)).toBe('0.55');
  });
});
