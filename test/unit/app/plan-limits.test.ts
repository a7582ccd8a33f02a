import { describe, expect, it } from 'vitest';
import { poolValidateOptions } from '../../../src/app/runs/plan-limits.ts';
import { planLimitsFor, validatePlan } from '../../../src/shared/plan/index.ts';

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

describe('the review checks a plan under the limits it was written under (issue 10, bug 2)', () => {
  it("accepts the conductor's own self-check when self-checks are allowed", () => {
    const limits = planLimitsFor('conductor', { maxSteps: 5, maxDepth: 2 });
    expect(limits).toEqual({ maxSteps: 5, allowSelf: true });
    expect(validatePlan(withSelfCheck, poolValidateOptions(workers, limits))).toEqual({
      ok: true,
      plan: withSelfCheck,
    });
  });

  it('refuses self when the user turned self-checks off or in router mode, naming workers by label', () => {
    for (const limits of [
      planLimitsFor('conductor', { maxSteps: 5, maxDepth: 0 }),
      { ...planLimitsFor('router', { maxSteps: 5, maxDepth: 2 }), maxSteps: 2 },
    ]) {
      const result = validatePlan(withSelfCheck, poolValidateOptions(workers, limits));
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toBe(
          'Step 1 names worker "self", which is not in the pool ("Claude", "Local llama"). ' +
            'The conductor cannot be called again here: the recursion limit is reached.',
        );
      }
    }
    expect(planLimitsFor('router', { maxSteps: 5, maxDepth: 2 })).toEqual({ maxSteps: 1, allowSelf: false });
  });
});
