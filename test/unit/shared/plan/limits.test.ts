import { describe, expect, it } from 'vitest';
import {
  planJsonSchema,
  planLimitsFor,
  plannedPool,
  poolValidateOptions,
  validatePlan,
} from '../../../../src/shared/plan/index.ts';

describe('planLimitsFor: the one rule a first plan is written, decoded and checked under', () => {
  it('gives the router one step and no self-check, whatever the user allows', () => {
    expect(planLimitsFor('router', { maxSteps: 5, maxDepth: 2 })).toEqual({ maxSteps: 1, allowSelf: false });
    expect(planLimitsFor('router', {})).toEqual({ maxSteps: 1, allowSelf: false });
  });

  it("gives the conductor the user's steps, and a self-check while any depth is allowed", () => {
    expect(planLimitsFor('conductor', { maxSteps: 3, maxDepth: 1 })).toEqual({
      maxSteps: 3,
      allowSelf: true,
    });
    expect(planLimitsFor('conductor', { maxSteps: 3, maxDepth: 0 })).toEqual({
      maxSteps: 3,
      allowSelf: false,
    });
  });

  it('falls back to the plan language defaults (5 steps, depth 2)', () => {
    expect(planLimitsFor('conductor', {})).toEqual({ maxSteps: 5, allowSelf: true });
  });

  it('offers no self-check to a one-step plan: a first plan checks an answer, so its check cannot stand alone', () => {
    expect(planLimitsFor('conductor', { maxSteps: 1, maxDepth: 2 })).toEqual({
      maxSteps: 1,
      allowSelf: false,
    });
    // Validation already refused a plan of nothing but `self`, so the rule takes nothing a plan could use.
    const selfOnly = { steps: [{ worker: 'self', task: 'Check.', sees: [] }] };
    expect(validatePlan(selfOnly, { workerIds: ['w1'], maxSteps: 1, allowSelf: true }).ok).toBe(false);
  });

  it('keeps at least one step, so the output constraint can always be built', () => {
    const limits = planLimitsFor('conductor', { maxSteps: 0, maxDepth: 2 });
    expect(limits.maxSteps).toBe(1);
    expect(() => planJsonSchema({ workerIds: ['w1'], ...limits, selfOnlyLast: true })).not.toThrow();
  });
});

describe('plannedPool', () => {
  const pool = [{ id: 'w1' }, { id: 'run' }, { id: 'self' }, { id: 'local' }];

  it('leaves `self` out: the limits say whether a plan may name it', () => {
    expect(plannedPool('conductor', pool).map((w) => w.id)).toEqual(['w1', 'run', 'local']);
  });

  it('leaves the code runner out for the router, whose one step answers the question', () => {
    expect(plannedPool('router', pool).map((w) => w.id)).toEqual(['w1', 'local']);
  });
});

describe('poolValidateOptions: a plan is checked under the limits it was written under', () => {
  const workers = [
    { id: 'w1', label: 'Claude' },
    { id: 'w2', label: 'Local llama' },
  ];
  const withSelfCheck = {
    thought: 'draft, then check',
    steps: [
      { worker: 'w1', task: 'Draft the answer.', sees: [] },
      { worker: 'self', task: 'Check the draft.', sees: [0] },
    ],
  };
  const forUser = (limits: { maxSteps: number; allowSelf: boolean }) => ({
    ...poolValidateOptions(workers, limits),
    labelsOnly: true,
  });

  it("accepts the conductor's own self-check when self-checks are allowed", () => {
    const limits = planLimitsFor('conductor', { maxSteps: 5, maxDepth: 2 });
    expect(validatePlan(withSelfCheck, forUser(limits))).toEqual({ ok: true, plan: withSelfCheck });
  });

  it('refuses self when the user turned self-checks off or in router mode, naming workers by label', () => {
    for (const limits of [
      planLimitsFor('conductor', { maxSteps: 5, maxDepth: 0 }),
      { ...planLimitsFor('router', { maxSteps: 5, maxDepth: 2 }), maxSteps: 2 },
    ]) {
      const result = validatePlan(withSelfCheck, forUser(limits));
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toBe(
          'Step 1 names worker "self", which is not in the pool ("Claude", "Local llama"). ' +
            'The conductor cannot be called again here: the recursion limit is reached.',
        );
      }
    }
  });

  it('leaves `self` out of the pool it is given: only the limits allow it', () => {
    const options = poolValidateOptions([...workers, { id: 'self', label: 'The conductor' }], {
      maxSteps: 3,
      allowSelf: false,
    });
    expect(options).toEqual({
      workerIds: ['w1', 'w2'],
      workerLabels: { w1: 'Claude', w2: 'Local llama' },
      maxSteps: 3,
      allowSelf: false,
    });
  });
});
