import { describe, expect, it } from 'vitest';
import { checkPlan, describeFindings } from '../../../../src/shared/plan/checks.ts';
import { type Plan, validatePlan } from '../../../../src/shared/plan/index.ts';

const workerLabels = { w1: 'GPT-5 mini', w2: 'Claude', w3: 'Gemini' };
const step = (worker: string, sees: Plan['steps'][number]['sees'], task = `task for ${worker}`) => ({
  worker,
  task,
  sees,
});

describe('checkPlan', () => {
  it('leaves a plan whose every step is read alone, and returns the same plan', () => {
    const plan: Plan = {
      thought: 'plan, code, check',
      steps: [step('w1', []), step('w2', [0]), step('w3', 'all')],
    };
    const check = checkPlan(plan, { workerLabels });
    expect(check).toEqual({ plan, findings: [], dropped: [], blocked: false });
  });

  describe('unread-step', () => {
    it('drops a step that no later step reads, renumbering what the others see', () => {
      const plan: Plan = {
        thought: 't',
        steps: [step('w1', []), step('w2', []), step('w3', [0]), step('w1', [2])],
      };
      const check = checkPlan(plan, { workerLabels });
      expect(check.dropped).toEqual([1]);
      expect(check.plan).toEqual({
        thought: 't',
        steps: [step('w1', []), step('w3', [0]), step('w1', [1])],
      });
      expect(check.findings).toEqual([
        {
          rule: 'unread-step',
          stepIndex: 1,
          message:
            'No later step reads the answer of step 1 ("Claude"), and it is not the last step, so its work would be wasted.',
          fix: 'Step 1 is left out.',
          blocking: false,
        },
      ]);
      expect(check.blocked).toBe(false);
      // The fixed plan is still a valid plan.
      expect(validatePlan(check.plan, { workerIds: ['w1', 'w2', 'w3'] }).ok).toBe(true);
    });

    it('drops a step read only by dropped steps too, and says why', () => {
      const plan: Plan = { steps: [step('w1', []), step('w2', [0]), step('w3', [])] };
      // Step 1 is unread; step 0 is read only by step 1. The last step sees nothing: that rule comes first.
      const blind = checkPlan(plan, { workerLabels });
      expect(blind.findings.map((f) => f.rule)).toEqual(['blind-last-step']);
      const chain: Plan = { steps: [step('w1', []), step('w2', [0]), step('w1', []), step('w3', [2])] };
      const check = checkPlan(chain, { workerLabels });
      expect(check.dropped).toEqual([0, 1]);
      expect(check.plan.steps).toEqual([step('w1', []), step('w3', [0])]);
      expect(check.findings[0]?.message).toContain('read only by steps that are themselves unread');
      expect(check.findings[1]?.message).toContain('No later step reads the answer of step 1');
    });

    it('counts a last self-check as reading every step, whatever its sees', () => {
      const plan: Plan = { steps: [step('w1', []), step('w2', []), step('self', [])] };
      expect(checkPlan(plan, { workerLabels }).findings).toEqual([]);
    });

    it('never drops the last step, even when nothing reads it', () => {
      const plan: Plan = { steps: [step('w1', [])] };
      expect(checkPlan(plan).plan).toBe(plan);
    });
  });

  describe('blind-last-step', () => {
    it('lets a last step that sees nothing see every earlier step, so none is wasted', () => {
      const plan: Plan = { steps: [step('w1', []), step('w2', [0]), step('w3', [])] };
      const check = checkPlan(plan, { workerLabels });
      expect(check.plan.steps.at(-1)).toEqual(step('w3', 'all'));
      expect(check.plan.steps).toHaveLength(3);
      expect(check.dropped).toEqual([]);
      expect(check.findings).toEqual([
        {
          rule: 'blind-last-step',
          stepIndex: 2,
          message:
            'The last step ("Gemini") gives the final answer but sees no earlier step, so the work of the 2 steps before it would be wasted.',
          fix: 'The last step now sees every earlier step.',
          blocking: false,
        },
      ]);
      // The input plan is not changed.
      expect(plan.steps[2]?.sees).toEqual([]);
    });

    it('does not apply to a plan of one step', () => {
      expect(checkPlan({ steps: [step('w1', [])] }).findings).toEqual([]);
    });
  });

  describe('no-key and vault-locked', () => {
    const plan: Plan = { steps: [step('w1', []), step('w2', [0]), step('self', 'all')] };

    it('blocks a run whose worker has no key, naming the worker by its label', () => {
      const check = checkPlan(plan, { workerLabels, hasKey: (id) => id !== 'w2' });
      expect(check.blocked).toBe(true);
      expect(check.findings).toEqual([
        {
          rule: 'no-key',
          stepIndex: 1,
          message: 'Step 1 goes to "Claude", which has no API key saved.',
          fix: 'Add a key for "Claude" in Settings, or give the step to another worker.',
          blocking: true,
        },
      ]);
    });

    it('blocks a run while the vault is locked, naming each worker that goes through it', () => {
      const check = checkPlan(plan, {
        workerLabels,
        vaultLocked: true,
        hasKey: () => true,
        needsVault: (id) => id === 'w2',
      });
      expect(check.blocked).toBe(true);
      expect(check.findings.map((f) => [f.rule, f.stepIndex])).toEqual([['vault-locked', 1]]);
      expect(check.findings[0]?.message).toBe(
        'Step 1 goes to "Claude", and the vault is locked: nothing can be sent while it is.',
      );
    });

    it('never asks about the conductor itself, and makes no key check without a predicate', () => {
      const asked: string[] = [];
      checkPlan(plan, {
        hasKey: (id) => {
          asked.push(id);
          return true;
        },
      });
      expect(asked).toEqual(['w1', 'w2']);
      expect(checkPlan(plan).blocked).toBe(false);
    });
  });

  it('describes each finding in one line: what is wrong, then what was done', () => {
    const check = checkPlan({ steps: [step('w1', []), step('w2', []), step('w3', [1])] }, { workerLabels });
    expect(describeFindings(check.findings)).toEqual([
      'No later step reads the answer of step 0 ("GPT-5 mini"), and it is not the last step, so its work would be wasted. Step 0 is left out.',
    ]);
  });
});

describe('validatePlan: self-not-last', () => {
  const options = { workerIds: ['w1', 'w2'], allowSelf: true, selfOnlyLast: true };

  it('rejects a self-check anywhere but last, when asked to', () => {
    const result = validatePlan({ steps: [step('w1', []), step('self', 'all'), step('w2', 'all')] }, options);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues).toEqual([
      {
        code: 'self-not-last',
        step: 1,
        message:
          "Step 1 is the conductor's self-check (self), which may only be the last step: it would check the answers before step 2 had given one.",
      },
    ]);
  });

  it('accepts a self-check as the last step, and numbers corrective steps after the workflow', () => {
    expect(validatePlan({ steps: [step('w1', []), step('self', 'all')] }, options).ok).toBe(true);
    const corrective = validatePlan(
      { steps: [step('self', 'all'), step('w1', [0])] },
      { ...options, offset: 3, minSteps: 0 },
    );
    expect(corrective.ok ? [] : corrective.issues.map((i) => [i.code, i.step])).toEqual([
      ['self-not-last', 3],
    ]);
  });

  it('leaves workflows that already ran alone (corrective steps follow the self step that added them)', () => {
    const ran = { steps: [step('w1', []), step('self', 'all'), step('w2', 'all')] };
    expect(validatePlan(ran, { workerIds: ['w1', 'w2'], allowSelf: true }).ok).toBe(true);
  });
});
