import { describe, expect, it } from 'vitest';
import {
  PlanError,
  planOrThrow,
  type ValidateOptions,
  validatePlan,
  validateStep,
} from '../../../src/plan/index.ts';

const pool: ValidateOptions = { workerIds: ['w1', 'w2'], allowSelf: true };
const step = (worker: string, task: string, sees: unknown) => ({ worker, task, sees });

function issuesOf(raw: unknown, options: ValidateOptions = pool) {
  const result = validatePlan(raw, options);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.plan)}`);
  return result;
}

describe('validatePlan', () => {
  it('accepts a valid plan, keeps the thought, and dedupes and sorts sees', () => {
    const result = validatePlan(
      {
        thought: 'split then check',
        steps: [
          step('w1', 'plan', []),
          step('w2', 'build', [0]),
          step('self', 'check', [1, 0, 1]),
          step('w1', 'x', 'all'),
        ],
        extra: 'ignored',
      },
      pool,
    );
    expect(result).toEqual({
      ok: true,
      plan: {
        thought: 'split then check',
        steps: [
          step('w1', 'plan', []),
          step('w2', 'build', [0]),
          step('self', 'check', [0, 1]),
          step('w1', 'x', 'all'),
        ],
      },
    });
  });

  it('strips unknown keys from steps and drops a non-string thought', () => {
    const result = validatePlan({ thought: 42, steps: [{ ...step('w1', 't', []), note: 'x' }] }, pool);
    expect(result).toEqual({ ok: true, plan: { steps: [step('w1', 't', [])] } });
  });

  it('names an unknown worker and lists the pool, self last', () => {
    const r = issuesOf({ steps: [step('w1', 'a', []), step('w2', 'b', []), step('gpt5', 'c', [])] });
    expect(r.issues).toEqual([
      {
        code: 'unknown-worker',
        step: 2,
        message: 'Step 2 names worker "gpt5", which is not in the pool (w1, w2, self).',
      },
    ]);
    expect(r.message).toBe('Step 2 names worker "gpt5", which is not in the pool (w1, w2, self).');
  });

  it('refuses self when recursion is not allowed, and says why', () => {
    const r = issuesOf({ steps: [step('self', 'a', [])] }, { workerIds: ['w1', 'w2'] });
    expect(r.issues[0]!.message).toBe(
      'Step 0 names worker "self", which is not in the pool (w1, w2). The conductor cannot be called again here: the recursion limit is reached.',
    );
  });

  it('reports an empty pool', () => {
    const r = issuesOf({ steps: [step('w1', 'a', [])] }, { workerIds: [] });
    expect(r.message).toBe('Step 0 names worker "w1", which is not in the pool (the pool is empty).');
  });

  it('reports a sees index pointing forward', () => {
    const r = issuesOf({
      steps: [step('w1', 'a', []), step('w2', 'b', [3]), step('w1', 'c', []), step('w1', 'd', [])],
    });
    expect(r.issues).toEqual([
      {
        code: 'sees-forward',
        step: 1,
        message: 'Step 1 sees step 3, which comes after it: a step may only see earlier steps.',
      },
    ]);
  });

  it('reports a step that sees itself', () => {
    expect(issuesOf({ steps: [step('w1', 'a', [0])] }).issues).toEqual([
      { code: 'sees-self', step: 0, message: 'Step 0 sees itself.' },
    ]);
  });

  it('reports a sees index past the end of the plan', () => {
    const steps = [step('w1', 'a', []), step('w1', 'b', []), step('w1', 'c', [7]), step('w1', 'd', [])];
    expect(issuesOf({ steps }).issues).toEqual([
      { code: 'sees-out-of-range', step: 2, message: 'Step 2 sees step 7, but the plan has only 4 steps.' },
    ]);
    expect(issuesOf({ steps: [step('w1', 'a', [1])] }).message).toBe(
      'Step 0 sees step 1, but the plan has only 1 step.',
    );
  });

  it('reports sees that are neither "all" nor a list of indices', () => {
    for (const sees of ['some', [1.5], [-1], ['0'], null, 3, {}]) {
      const r = issuesOf({ steps: [step('w1', 'a', []), step('w1', 'b', sees)] });
      expect(r.issues).toEqual([
        {
          code: 'sees-invalid',
          step: 1,
          message: `Step 1 has sees ${JSON.stringify(sees)}; it must be "all" or a list of earlier step numbers.`,
        },
      ]);
    }
  });

  it('reports an empty or blank task', () => {
    for (const task of ['', '   \n']) {
      expect(issuesOf({ steps: [step('w1', 'a', []), step('w1', task, [])] }).issues).toEqual([
        { code: 'empty-task', step: 1, message: 'Step 1 has an empty task.' },
      ]);
    }
  });

  it('reports too many steps against the default limit of 5 and a custom one', () => {
    const steps = Array.from({ length: 7 }, (_, i) => step('w1', `t${i}`, []));
    expect(issuesOf({ steps }).issues).toEqual([
      { code: 'too-many-steps', message: 'The plan has 7 steps; the limit is 5.' },
    ]);
    expect(issuesOf({ steps: steps.slice(0, 3) }, { ...pool, maxSteps: 2 }).message).toBe(
      'The plan has 3 steps; the limit is 2.',
    );
    expect(validatePlan({ steps }, { ...pool, maxSteps: 7 }).ok).toBe(true);
  });

  it('reports no steps, unless minSteps is 0 (a corrective call that accepts)', () => {
    expect(issuesOf({ steps: [] }).issues).toEqual([{ code: 'no-steps', message: 'The plan has no steps.' }]);
    expect(validatePlan({ steps: [] }, { ...pool, minSteps: 0 })).toEqual({ ok: true, plan: { steps: [] } });
  });

  it('reports too few steps under minSteps', () => {
    expect(issuesOf({ steps: [step('w1', 'a', [])] }, { ...pool, minSteps: 2 }).issues).toEqual([
      { code: 'too-few-steps', message: 'The plan has 1 step; it needs at least 2.' },
    ]);
  });

  it('reports shape faults', () => {
    expect(issuesOf([]).message).toBe('The plan must be a JSON object with a "steps" list, not a list.');
    expect(issuesOf(null).message).toBe('The plan must be a JSON object with a "steps" list, not null.');
    expect(issuesOf('x').message).toBe('The plan must be a JSON object with a "steps" list, not a string.');
    expect(issuesOf({}).message).toBe('The plan has no "steps" list.');
    expect(issuesOf({ steps: {} }).message).toBe('The plan\'s "steps" must be a list of steps.');
    expect(issuesOf({ steps: ['do it'] }).issues).toEqual([
      { code: 'shape', step: 0, message: 'Step 0 is not an object with "worker", "task" and "sees".' },
    ]);
    expect(issuesOf({ steps: [{ task: 'a', sees: [] }] }).message).toBe(
      'Step 0 has no "worker" (a worker id).',
    );
    expect(issuesOf({ steps: [{ worker: 'w1', sees: [] }] }).message).toBe(
      'Step 0 has no "task" (the instruction for its worker, a string).',
    );
    expect(issuesOf({ steps: [{ worker: 'w1', task: 'a' }] }).message).toBe(
      'Step 0 has no "sees" ("all" or a list of earlier step numbers).',
    );
  });

  it('collects every fault, in step order, and joins the messages', () => {
    const r = issuesOf({ steps: [step('x', '', [0]), step('w1', 'b', [2])] });
    expect(r.issues.map((i) => [i.code, i.step])).toEqual([
      ['unknown-worker', 0],
      ['empty-task', 0],
      ['sees-self', 0],
      ['sees-out-of-range', 1],
    ]);
    expect(r.message).toBe(r.issues.map((i) => i.message).join(' '));
  });

  it('numbers corrective steps after the existing ones with offset', () => {
    const options = { ...pool, offset: 3, minSteps: 0 };
    expect(validatePlan({ steps: [step('w1', 'fix', [2]), step('w2', 'recheck', [0, 3])] }, options).ok).toBe(
      true,
    );
    expect(issuesOf({ steps: [step('w1', 'fix', [3])] }, options).message).toBe('Step 3 sees itself.');
    expect(issuesOf({ steps: [step('w1', 'fix', [5])] }, options).message).toBe(
      'Step 3 sees step 5, but the plan has only 4 steps.',
    );
  });
});

describe('validateStep', () => {
  it('validates one step alone; without a step count a later index points forward', () => {
    expect(validateStep(step('w1', 'a', [1, 0]), 2, pool)).toEqual({
      ok: true,
      step: step('w1', 'a', [0, 1]),
    });
    const r = validateStep(step('w1', 'a', [9]), 2, pool);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]!.code).toBe('sees-forward');
  });
});

describe('PlanError', () => {
  it('carries the issues and the joined message', () => {
    const result = validatePlan({ steps: [] }, pool);
    expect(() => planOrThrow(result)).toThrow(PlanError);
    try {
      planOrThrow(result);
    } catch (error) {
      expect(error).toBeInstanceOf(PlanError);
      expect((error as PlanError).name).toBe('PlanError');
      expect((error as PlanError).issues).toEqual([{ code: 'no-steps', message: 'The plan has no steps.' }]);
      expect((error as PlanError).message).toBe('The plan has no steps.');
    }
    expect(planOrThrow(validatePlan({ steps: [step('w1', 'a', 'all')] }, pool))).toEqual({
      steps: [step('w1', 'a', 'all')],
    });
  });
});
