import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/evaluation/random.ts';
import {
  banditStateSchema,
  type Candidate,
  choose,
  costRatioWords,
  createBanditState,
  lambdaOf,
  NoStrategyAvailable,
  solve,
  update,
} from '../../../src/learning/bandit.ts';
import { categoryOf, FEATURE_DIMENSION, featuresFor } from '../../../src/learning/features.ts';

const seeded = mulberry32;

const ARMS: Candidate[] = [{ arm: 'conductor' }, { arm: 'router' }, { arm: 'single:w1' }];
const always = () => true;

describe('features', () => {
  it('recognises categories by their words and gives a vector of the stated dimension', () => {
    expect(categoryOf('Fix this TypeScript function')).toBe('code');
    expect(categoryOf('Solve the equation 3x + 2 = 11')).toBe('math');
    expect(categoryOf('Write a short poem about rain')).toBe('writing');
    expect(categoryOf('Compare the pros and cons of SQLite and Postgres for a blog')).toBe('analysis');
    expect(categoryOf('Who wrote Hamlet?')).toBe('facts');
    expect(categoryOf('hello there')).toBe('other');
    expect(featuresFor('Who wrote Hamlet?', undefined)).toHaveLength(FEATURE_DIMENSION);
  });
});

describe('the bandit', () => {
  it('solves a small linear system', () => {
    expect(solve([2, 1, 1, 3], [3, 5]).map((v) => Number(v.toFixed(6)))).toEqual([0.8, 1.4]);
  });

  it('starts from the conductor: with nothing learned it is chosen more often than all the others together', () => {
    const random = seeded(1);
    const state = createBanditState();
    let conductor = 0;
    for (let i = 0; i < 200; i++)
      if (
        choose(state, 'Who wrote Hamlet?', ARMS, { available: always, slider: 0, random }).arm === 'conductor'
      )
        conductor++;
    expect(conductor).toBeGreaterThan(100);
  });

  it('learns the better arm in a synthetic environment where it differs by category', () => {
    const random = seeded(7);
    // Facts: one worker answers well; code: only the conductor does.
    const pGood: Record<string, Record<string, number>> = {
      facts: { conductor: 0.6, router: 0.5, 'single:w1': 0.95 },
      code: { conductor: 0.9, router: 0.4, 'single:w1': 0.2 },
    };
    const questions = { facts: 'Who wrote Hamlet?', code: 'Fix the bug in this TypeScript function' };
    let state = createBanditState();
    const late: Record<string, Record<string, number>> = { facts: {}, code: {} };
    for (let t = 0; t < 400; t++) {
      const category = t % 2 === 0 ? 'facts' : 'code';
      const q = questions[category];
      const { arm } = choose(state, q, ARMS, { available: always, slider: 0, random });
      const good = random() < pGood[category]![arm]!;
      state = update(state, q, arm, undefined, good, 0.001);
      if (t >= 300) late[category]![arm] = (late[category]![arm] ?? 0) + 1;
    }
    expect(late.facts!['single:w1']).toBeGreaterThan(40);
    expect(late.code!.conductor).toBeGreaterThan(40);
    expect(state.categories.facts?.['single:w1']?.tries).toBeGreaterThan(0);
  });

  it('never picks a strategy that is not available, and says so when none is', () => {
    const random = seeded(3);
    let state = createBanditState();
    // The single worker is clearly best, but has no key.
    for (let i = 0; i < 30; i++) state = update(state, 'Who wrote Hamlet?', 'single:w1', undefined, true, 0);
    const available = (arm: string) => arm !== 'single:w1';
    for (let i = 0; i < 100; i++)
      expect(choose(state, 'Who wrote Hamlet?', ARMS, { available, slider: 0, random }).arm).not.toBe(
        'single:w1',
      );
    expect(() => choose(state, 'x', ARMS, { available: () => false, slider: 0, random })).toThrow(
      NoStrategyAvailable,
    );
  });

  it('λ changes the choice when costs differ', () => {
    const random = seeded(5);
    let state = createBanditState();
    const q = 'Who wrote Hamlet?';
    // The conductor is a little better and costs ten times more.
    for (let i = 0; i < 60; i++) {
      state = update(state, q, 'conductor', undefined, i % 10 !== 0, 0.01);
      state = update(state, q, 'single:w1', undefined, i % 10 > 1, 0.001);
    }
    const pick = (slider: number) => {
      const counts: Record<string, number> = {};
      for (let i = 0; i < 100; i++) {
        const { arm } = choose(state, q, [{ arm: 'conductor' }, { arm: 'single:w1' }], {
          available: always,
          slider,
          random,
        });
        counts[arm] = (counts[arm] ?? 0) + 1;
      }
      return counts;
    };
    expect(pick(0).conductor).toBeGreaterThan(60);
    expect(pick(1)['single:w1']).toBeGreaterThan(90);
    expect(lambdaOf(0.5)).toBe(50);
  });

  it('explains a choice from the real numbers', () => {
    const random = seeded(9);
    const state = createBanditState();
    const candidates: Candidate[] = [
      { arm: 'conductor', neighbours: { good: 6, total: 10, meanCostUsd: 0.005 } },
      { arm: 'single:w1', neighbours: { good: 9, total: 10, meanCostUsd: 0.001 } },
    ];
    const choice = choose(state, 'Who wrote Hamlet?', candidates, {
      available: (arm) => arm === 'single:w1',
      slider: 0.5,
      random,
      labelOf: (arm) => (arm === 'single:w1' ? 'Fast worker' : 'the conductor'),
    });
    expect(choice.reason).toBe(
      "9 of 10 similar questions were answered well by Fast worker at a fifth of the conductor's cost.",
    );
    expect(costRatioWords(0.002, 0.005)).toBe('40% of');
  });

  it('state round-trips through JSON and the import schema', () => {
    let state = createBanditState();
    state = update(
      state,
      'Who wrote Hamlet?',
      'single:w1',
      { good: 2, total: 3, meanCostUsd: 0.001 },
      true,
      0.001,
    );
    state = update(state, 'Fix this Python bug', 'conductor', undefined, false, 0.004);
    const back = banditStateSchema.parse(JSON.parse(JSON.stringify(state)));
    expect(back).toEqual(state);
    const random1 = seeded(11);
    const random2 = seeded(11);
    const opts = (random: () => number) => ({ available: always, slider: 0.3, random });
    expect(choose(back, 'Who is it?', ARMS, opts(random1))).toEqual(
      choose(state, 'Who is it?', ARMS, opts(random2)),
    );
    const bad = banditStateSchema.safeParse({ ...state, dimension: 3 });
    expect(bad.success).toBe(false);
  });
});
