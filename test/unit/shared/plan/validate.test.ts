import { describe, expect, it } from 'vitest';
import { kindOf } from '../../../../src/shared/plan/describe.ts';
import {
  DEFAULT_MAX_TASK_LENGTH,
  DEFAULT_MAX_THOUGHT_LENGTH,
  IncrementalPlanParser,
  PlanError,
  parsePlan,
  planJsonSchema,
  planOrThrow,
  type ValidateOptions,
  validatePlan,
  validateStep,
} from '../../../../src/shared/plan/index.ts';

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

describe('a plan of only self-checks', () => {
  it('is rejected before it runs, with a message that says why', () => {
    const r = issuesOf({ steps: [step('self', 'check', []), step('self', 'check again', 'all')] });
    expect(r.issues).toEqual([
      {
        code: 'no-worker-step',
        message:
          'Every step of the plan is a self-check by the conductor, so no worker would answer: ' +
          'the plan needs at least one step for a worker from the pool.',
      },
    ]);
  });

  it('is fine once one step has a worker, and corrective self-checks after a workflow are fine', () => {
    expect(validatePlan({ steps: [step('self', 'c', []), step('w1', 'a', [])] }, pool).ok).toBe(true);
    expect(
      validatePlan({ steps: [step('self', 'check', 'all')] }, { ...pool, offset: 2, minSteps: 0 }).ok,
    ).toBe(true);
  });
});

describe('bounded messages and the schema limits', () => {
  const MAX_MESSAGE = 4_000;

  it('reports sees nested 5,000 deep without overflowing the stack', () => {
    let deep: unknown = [];
    for (let i = 0; i < 5_000; i++) deep = [deep];
    const r = issuesOf({ steps: [step('w1', 'a', deep)] });
    expect(r.issues).toEqual([
      {
        code: 'sees-invalid',
        step: 0,
        message: 'Step 0 has sees [[[[…]]]]; it must be "all" or a list of earlier step numbers.',
      },
    ]);
  });

  it("parses and reports a deeply nested sees from the model's text, streamed or whole", () => {
    for (const depth of [5_000, 100_000]) {
      const text = `{"steps":[{"worker":"w1","task":"t","sees":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
      const expected = 'Step 0 has sees [[[[…]]]]; it must be "all" or a list of earlier step numbers.';
      const whole = parsePlan(text, pool);
      expect(!whole.ok && whole.message).toBe(expected);
      const [event] = new IncrementalPlanParser(pool).push(text);
      expect(event?.error?.message).toBe(expected);
    }
  });

  it('keeps the message short for a sees of a million entries, valid-looking or not', () => {
    const forward = Array.from({ length: 1_000_000 }, (_, i) => i + 1);
    const r = issuesOf({ steps: [step('w1', 'a', forward)] });
    expect(r.message.length).toBeLessThan(MAX_MESSAGE);
    expect(r.issues.map((i) => i.step)).toEqual([0, 0, 0, 0]);
    expect(r.issues.at(-1)?.message).toBe('Step 0 sees 999,997 more steps that do not come before it.');

    const junk = Array.from({ length: 1_000_000 }, () => 'x'.repeat(10));
    const r2 = issuesOf({ steps: [step('w1', 'a', junk)] });
    expect(r2.message.length).toBeLessThan(MAX_MESSAGE);
    expect(r2.message).toContain('999,994 more');
  });

  it('names a number too large to read instead of printing it as null', () => {
    const r = parsePlan('{"steps":[{"worker":"w1","task":"a","sees":[1e400]}]}', pool);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toBe(
        'Step 0 has sees [a number too large to read]; it must be "all" or a list of earlier step numbers.',
      );
      expect(r.message).not.toContain('null');
    }
  });

  it('rejects a task longer than the JSON Schema allows, naming the step, from the same constant', () => {
    const long = 'x'.repeat(1_000_000);
    const r = issuesOf({ steps: [step('w1', 'a', []), step('w2', long, [0])] });
    expect(r.issues).toEqual([
      {
        code: 'task-too-long',
        step: 1,
        message: `Step 1's task is 1,000,000 characters long; the limit is ${DEFAULT_MAX_TASK_LENGTH}.`,
      },
    ]);
    const schema = planJsonSchema({ workerIds: ['w1'], maxSteps: 5 }) as {
      properties: { steps: { items: { properties: { task: { maxLength: number } } } } };
    };
    expect(schema.properties.steps.items.properties.task.maxLength).toBe(DEFAULT_MAX_TASK_LENGTH);
    const atLimit = 'é'.repeat(DEFAULT_MAX_TASK_LENGTH);
    expect(validatePlan({ steps: [step('w1', atLimit, [])] }, pool).ok).toBe(true);
    // Characters, as JSON Schema counts them: 600 emoji are 1,200 UTF-16 units and still within the limit.
    expect(validatePlan({ steps: [step('w1', '😀'.repeat(DEFAULT_MAX_TASK_LENGTH), [])] }, pool).ok).toBe(
      true,
    );
    expect(validatePlan({ steps: [step('w1', 'ab', [])] }, { ...pool, maxTaskLength: 1 }).ok).toBe(false);
  });

  it('rejects a thought longer than the JSON Schema allows', () => {
    const r = issuesOf({ thought: 't'.repeat(1 << 20), steps: [step('w1', 'a', [])] });
    expect(r.issues).toEqual([
      {
        code: 'thought-too-long',
        message: `The plan's thought is 1,048,576 characters long; the limit is ${DEFAULT_MAX_THOUGHT_LENGTH}.`,
      },
    ]);
  });

  it('rejects a task of invisible characters as empty', () => {
    for (const task of ['\u200b\u200b\u200b', '\u200d\ufeff \u2060', '\u3164', '\u00a0\u2800']) {
      const r = issuesOf({ steps: [step('w1', task, [])] });
      expect(r.issues).toEqual([
        {
          code: 'empty-task',
          step: 0,
          message: 'Step 0 has an empty task (it holds only invisible characters).',
        },
      ]);
    }
    expect(validatePlan({ steps: [step('w1', '\u200bhi', [])] }, pool).ok).toBe(true);
  });

  it('caps the number of issues of a huge plan and bounds a huge worker id', () => {
    const steps = Array.from({ length: 100_000 }, () => step('y'.repeat(100_000), '', 'x'));
    const r = issuesOf({ steps });
    expect(r.issues.length).toBeLessThanOrEqual(12);
    expect(r.issues.at(-1)?.code).toBe('more-issues');
    expect(r.message.length).toBeLessThan(MAX_MESSAGE);
    expect(r.issues[1]?.message).toBe(
      `Step 0 names worker "${'y'.repeat(60)}"… (100,000 characters), which is not in the pool (w1, w2, self).`,
    );
  });
});

describe('worker labels in messages', () => {
  const labelled: ValidateOptions = {
    workerIds: ['w1', 'w2'],
    workerLabels: { w1: 'Claude', w2: 'GPT "mini"' },
  };

  it("names the pool by the user's labels with the ids", () => {
    const r = issuesOf({ steps: [step('w9', 'a', [])] }, labelled);
    expect(r.message).toBe(
      'Step 0 names worker "w9", which is not in the pool ("Claude" (w1), "GPT \\"mini\\"" (w2)).',
    );
  });

  it('names the conductor as itself when self is out of reach', () => {
    const r = issuesOf({ steps: [step('w1', 'a', []), step('self', 'check', 'all')] }, labelled);
    expect(r.message).toBe(
      'Step 1 names worker "self", which is not in the pool ("Claude" (w1), "GPT \\"mini\\"" (w2)). ' +
        'The conductor cannot be called again here: the recursion limit is reached.',
    );
    const withSelf = issuesOf({ steps: [step('gpt', 'a', [])] }, { ...labelled, allowSelf: true });
    expect(withSelf.message).toContain('("Claude" (w1), "GPT \\"mini\\"" (w2), the conductor (self))');
  });
});

describe('worker labels alone, for the user', () => {
  it('names workers by label, keeping the id only where two share a label', () => {
    const options: ValidateOptions = {
      workerIds: ['w1', 'w2', 'w3'],
      workerLabels: { w1: 'Claude', w2: 'Mini', w3: 'Mini' },
      allowSelf: true,
      labelsOnly: true,
    };
    const r = issuesOf({ steps: [step('w9', 'a', [])] }, options);
    expect(r.message).toBe(
      'Step 0 names worker "w9", which is not in the pool ("Claude", "Mini" (w2), "Mini" (w3), the conductor\'s self-check).',
    );
  });
});

describe('what a non-plan is called', () => {
  it.each([
    [undefined, 'not an empty value.'],
    ['text', 'not a string.'],
    [[1], 'not a list.'],
  ])('%j gets a message with the right article', (raw, expected) => {
    const result = validatePlan(raw, pool);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues[0]?.message).toContain(expected);
      expect(result.issues[0]?.message).not.toMatch(/\ba (object|undefined)\b/);
    }
  });
  it('names an object as "an object" when it describes a value', () => {
    expect(kindOf({})).toBe('an object');
    expect(kindOf(undefined)).toBe('an empty value');
    expect(kindOf(1n)).toBe('a bigint');
  });
});

describe('a step pinned to its worker (failover)', () => {
  it('keeps pin: true, drops pin: false, and rejects any other pin with the step named', () => {
    expect(validateStep({ ...step('w1', 'a', []), pin: true }, 0, pool)).toEqual({
      ok: true,
      step: { ...step('w1', 'a', []), pin: true },
    });
    expect(validateStep({ ...step('w1', 'a', []), pin: false }, 0, pool)).toEqual({
      ok: true,
      step: step('w1', 'a', []),
    });
    const bad = validateStep({ ...step('w1', 'a', []), pin: 'yes' }, 1, pool);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues[0]?.message).toBe('Step 1 has pin "yes"; it must be true or false.');
  });

  it("is the user's, not the conductor's: the decoding schema has no pin", () => {
    const schema = planJsonSchema({ workerIds: ['w1'], maxSteps: 3 }) as {
      properties: { steps: { items: { properties: Record<string, unknown> } } };
    };
    expect(Object.keys(schema.properties.steps.items.properties)).toEqual(['worker', 'task', 'sees']);
  });
});
