import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_STEPS,
  PlanSchema,
  planJsonSchema,
  validatePlan,
} from '../../../../src/shared/plan/index.ts';

type Schema = Record<string, unknown>;

/**
 * A checker for exactly the JSON Schema keywords planJsonSchema may use; it throws on any other keyword,
 * so the test also pins the schema to the subset grammar converters accept. `root` resolves `$ref`s.
 */
function conforms(schema: Schema, value: unknown, root: Schema = schema): boolean {
  const known = new Set([
    'type',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'prefixItems',
    'minItems',
    'maxItems',
    'enum',
    'const',
    'anyOf',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    '$ref',
    '$defs',
  ]);
  for (const key of Object.keys(schema)) if (!known.has(key)) throw new Error(`unexpected keyword ${key}`);
  if (typeof schema.$ref === 'string') {
    const name = /^#\/\$defs\/(\w+)$/.exec(schema.$ref)?.[1];
    const target = name ? (root.$defs as Record<string, Schema> | undefined)?.[name] : undefined;
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return conforms(target, value, root);
  }
  if (schema.anyOf) return (schema.anyOf as Schema[]).some((s) => conforms(s, value, root));
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const record = value as Record<string, unknown>;
      if (!((schema.required ?? []) as string[]).every((k) => k in record)) return false;
      if (schema.additionalProperties === false && !Object.keys(record).every((k) => k in props))
        return false;
      return Object.entries(record).every(([k, v]) => !props[k] || conforms(props[k], v, root));
    }
    case 'array': {
      if (!Array.isArray(value)) return false;
      if (typeof schema.minItems === 'number' && value.length < schema.minItems) return false;
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return false;
      const prefix = (schema.prefixItems ?? []) as Schema[];
      // A tuple must bound its own length: llama.cpp reads no items after `prefixItems`, xgrammar none in strict mode.
      if (prefix.length > 0 && (schema.items !== undefined || schema.maxItems !== prefix.length)) {
        throw new Error('a tuple needs maxItems equal to its length and no items');
      }
      return value.every((v, i) =>
        conforms(i < prefix.length ? (prefix[i] as Schema) : (schema.items as Schema), v, root),
      );
    }
    case 'string':
      if (typeof value !== 'string') return false;
      if (schema.const !== undefined && value !== schema.const) return false;
      if (schema.enum && !(schema.enum as string[]).includes(value)) return false;
      if (typeof schema.minLength === 'number' && value.length < schema.minLength) return false;
      return !(typeof schema.maxLength === 'number' && value.length > schema.maxLength);
    case 'integer':
      return (
        Number.isInteger(value) &&
        !(typeof schema.minimum === 'number' && (value as number) < schema.minimum) &&
        !(typeof schema.maximum === 'number' && (value as number) > schema.maximum)
      );
    default:
      throw new Error(`unexpected type ${String(schema.type)}`);
  }
}

function walk(value: unknown, visit: (key: string, v: unknown) => void): void {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

const get = (schema: unknown, ...path: string[]): Schema =>
  path.reduce((s, k) => (s as Schema)[k] as Schema, schema as Schema);

describe('planJsonSchema', () => {
  const schema = planJsonSchema({
    workerIds: ['w0', 'w1', 'w2'],
    maxSteps: DEFAULT_MAX_STEPS,
    allowSelf: true,
  });

  it('narrows worker to the pool (plus self), steps to the limit, and sees to "all" or indices', () => {
    expect(get(schema, 'properties', 'steps', 'items', 'properties', 'worker')).toEqual({
      type: 'string',
      enum: ['w0', 'w1', 'w2', 'self'],
    });
    expect(get(schema, 'properties', 'steps')).toMatchObject({ type: 'array', minItems: 1, maxItems: 5 });
    expect(get(schema, 'properties', 'steps', 'items', 'properties', 'sees')).toEqual({
      anyOf: [
        { type: 'string', const: 'all' },
        { type: 'array', items: { type: 'integer', minimum: 0, maximum: 3 } },
      ],
    });
    expect(get(schema, 'properties', 'steps', 'items', 'properties', 'task')).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: 600,
    });
    expect(schema.required).toEqual(['steps']);
    expect(get(schema, 'properties', 'steps', 'items').required).toEqual(['worker', 'task', 'sees']);
    expect(schema.additionalProperties).toBe(false);
    expect(get(schema, 'properties', 'steps', 'items').additionalProperties).toBe(false);
  });

  it('keeps the order a model writes in: thought, steps; worker, task, sees', () => {
    expect(Object.keys(get(schema, 'properties'))).toEqual(['thought', 'steps']);
    expect(Object.keys(get(schema, 'properties', 'steps', 'items', 'properties'))).toEqual([
      'worker',
      'task',
      'sees',
    ]);
  });

  it('uses nothing grammar converters reject: no remote $ref, $schema, format or huge bounds', () => {
    walk(
      planJsonSchema({ workerIds: ['w0', 'w1'], maxSteps: 5, allowSelf: true, selfOnlyLast: true }),
      (key, value) => {
        if (key === '$ref') expect(value).toMatch(/^#\/\$defs\/\w+$/);
        expect(['definitions', '$schema', '$id', 'format', 'pattern', 'oneOf', 'allOf']).not.toContain(key);
        if (typeof value === 'number') expect(value).toBeLessThan(1e6);
      },
    );
    // Plain data: survives a JSON round trip unchanged.
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it('follows the options', () => {
    const s = planJsonSchema({
      workerIds: ['a'],
      maxSteps: 3,
      minSteps: 0,
      maxTaskLength: 100,
      maxThoughtLength: 50,
      requireThought: true,
    });
    expect(get(s, 'properties', 'steps', 'items', 'properties', 'worker').enum).toEqual(['a']);
    expect(get(s, 'properties', 'steps')).toMatchObject({ minItems: 0, maxItems: 3 });
    expect(get(s, 'properties', 'steps', 'items', 'properties', 'task').maxLength).toBe(100);
    expect(get(s, 'properties', 'thought').maxLength).toBe(50);
    expect(s.required).toEqual(['thought', 'steps']);
    expect(
      planJsonSchema({ workerIds: ['a', 'self'], maxSteps: 2, allowSelf: true }).properties,
    ).toMatchObject({
      steps: { items: { properties: { worker: { enum: ['a', 'self'] } } } },
    });
    // Corrective steps continue the numbering, so they may see further back; one step may see nothing.
    const seesOf = (o: Parameters<typeof planJsonSchema>[0]) =>
      get(planJsonSchema(o), 'properties', 'steps', 'items', 'properties', 'sees').anyOf;
    expect(seesOf({ workerIds: ['a'], maxSteps: 2, offset: 4, minSteps: 0 })).toEqual([
      { type: 'string', const: 'all' },
      { type: 'array', items: { type: 'integer', minimum: 0, maximum: 4 } },
    ]);
    expect(seesOf({ workerIds: ['a'], maxSteps: 1 })).toEqual([
      { type: 'string', const: 'all' },
      { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: 0 },
    ]);
    expect(() => planJsonSchema({ workerIds: [], maxSteps: 3 })).toThrow(/no workers/);
    expect(() => planJsonSchema({ workerIds: ['a'], maxSteps: 0 })).toThrow(/below minSteps/);
  });

  it('with selfOnlyLast, lets decoding write `self` exactly where validation accepts it', () => {
    // Every sequence of workers up to one past the limit, each as a plan that is otherwise valid: the
    // schema and validation, given the same options, must agree on every one of them.
    const sequences = (n: number): string[][] =>
      n === 0 ? [[]] : sequences(n - 1).flatMap((s) => [...['w0', 'w1', 'self'].map((w) => [...s, w])]);
    const cases = [
      { workerIds: ['w0', 'w1'], maxSteps: 4, allowSelf: true, selfOnlyLast: true },
      { workerIds: ['w0', 'w1'], maxSteps: 1, allowSelf: true, selfOnlyLast: true },
      // Corrective steps: they may be none (accept), or a check alone after the workflow's own steps.
      { workerIds: ['w0', 'w1'], maxSteps: 3, allowSelf: true, selfOnlyLast: true, offset: 3, minSteps: 0 },
      { workerIds: ['w0', 'w1'], maxSteps: 3, allowSelf: false, selfOnlyLast: true },
    ];
    for (const options of cases) {
      const decoding = planJsonSchema(options);
      let selfPlans = 0;
      for (let n = 0; n <= options.maxSteps + 1; n++) {
        for (const workers of sequences(n)) {
          const plan = { steps: workers.map((worker) => ({ worker, task: 'do it', sees: [] })) };
          const valid = validatePlan(plan, options).ok;
          expect(conforms(decoding, plan), `${JSON.stringify(options)}: ${workers.join(' ')}`).toBe(valid);
          if (valid && workers.includes('self')) selfPlans++;
        }
      }
      // The rule narrows where `self` goes, not whether: a check after the work stays possible.
      expect(selfPlans > 0).toBe(options.allowSelf && options.maxSteps > 1);
    }
    // Without the option both let `self` go anywhere (workflows that already ran hold such steps).
    const loose = { workerIds: ['w0'], maxSteps: 3, allowSelf: true };
    const middle = { steps: ['w0', 'self', 'w0'].map((worker) => ({ worker, task: 'x', sees: [] })) };
    expect(conforms(planJsonSchema(loose), middle)).toBe(true);
    expect(validatePlan(middle, loose).ok).toBe(true);
  });

  it('accepts the plans validatePlan accepts, and rejects what its narrowing forbids', () => {
    const options = { workerIds: ['w0', 'w1', 'w2'], allowSelf: true };
    const step = (worker: string, sees: unknown, task = 'do it') => ({ worker, task, sees });
    const good = [
      { thought: 'x', steps: [step('w0', [])] },
      { steps: [step('w1', []), step('self', [0]), step('w2', 'all')] },
      { steps: Array.from({ length: 5 }, (_, i) => step('w0', i === 0 ? [] : [i - 1])) },
    ];
    for (const plan of good) {
      expect(validatePlan(plan, options).ok).toBe(true);
      expect(PlanSchema.safeParse(plan).success).toBe(true);
      expect(conforms(schema, plan), JSON.stringify(plan)).toBe(true);
    }
    const bad = [
      { steps: [] }, // minItems
      { steps: Array.from({ length: 6 }, () => step('w0', [])) }, // maxItems
      { steps: [step('gpt5', [])] }, // enum
      { steps: [step('w0', 'some')] }, // const "all"
      { steps: [step('w0', [-1])] }, // minimum
      { steps: [step('w0', [4])] }, // maximum: no step of five can see step 4
      { steps: [step('w0', [0.5])] }, // integer
      { steps: [step('w0', [], '')] }, // minLength
      { steps: [step('w0', [], 'x'.repeat(601))] }, // maxLength
      { steps: [{ ...step('w0', []), extra: 1 }] }, // additionalProperties
      { steps: [{ worker: 'w0', task: 'x' }] }, // required
      { plan: 1, steps: [step('w0', [])] }, // additionalProperties at the root
    ];
    for (const plan of bad) expect(conforms(schema, plan), JSON.stringify(plan)).toBe(false);
    // The schema cannot express "sees points backwards": validation still has to.
    const forward = { steps: [step('w0', [1]), step('w1', [])] };
    expect(conforms(schema, forward)).toBe(true);
    expect(validatePlan(forward, options).ok).toBe(false);
  });
});
