import { describe, expect, it } from 'vitest';
import { parsePlan, planJsonSchema } from '../../../src/shared/plan/index.ts';
import { PLANNER_PROSE, planFor, plannerModel, requestedSchema } from '../../provider/planner-model.ts';
import { answer } from '../../provider/server.ts';

const messages = [{ role: 'user', content: 'What is 2+2?' }];
const body = (schema: Record<string, unknown>) => ({
  messages,
  response_format: { type: 'json_schema', json_schema: { name: 'plan', schema } },
});

describe('the scripted planner model', () => {
  it('writes a plan valid for the schema it is given: pool, step limit and offset', () => {
    const cases = [
      { workerIds: ['w1', 'w2', 'w3'], maxSteps: 5, allowSelf: true },
      // What the conductor thread sends: a check only as the last step ($defs, one tuple per length).
      { workerIds: ['w1', 'w2', 'w3'], maxSteps: 5, allowSelf: true, selfOnlyLast: true },
      { workerIds: ['w1', 'w2'], maxSteps: 1 },
      { workerIds: ['only'], maxSteps: 3 },
      { workerIds: ['a', 'b'], maxSteps: 3, offset: 2 },
    ];
    for (const options of cases) {
      const schema = planJsonSchema({ ...options, requireThought: true });
      const text = answer(plannerModel().behaviour, messages, body(schema));
      const parsed = parsePlan(text, { ...options, minSteps: 1 });
      expect(parsed.ok, JSON.stringify(options)).toBe(true);
      if (!parsed.ok) continue;
      expect(parsed.plan.steps.length).toBe(Math.min(2, options.maxSteps, options.workerIds.length));
      expect(parsed.plan.steps.every((s) => s.worker !== 'self')).toBe(true);
      if (parsed.plan.steps[1]) expect(parsed.plan.steps[1].sees).toEqual([options.offset ?? 0]);
    }
  });

  it('accepts the answer when asked for corrective steps (minItems 0)', () => {
    const schema = planJsonSchema({ workerIds: ['w1'], maxSteps: 3, minSteps: 0, offset: 2 });
    expect(planFor(schema).steps).toEqual([]);
    const withCheck = planJsonSchema({
      workerIds: ['w1'],
      maxSteps: 3,
      minSteps: 0,
      offset: 2,
      allowSelf: true,
      selfOnlyLast: true,
    });
    expect(planFor(withCheck).steps).toEqual([]);
  });

  it('answers in prose without a JSON schema, the same every time', () => {
    expect(requestedSchema({ messages, response_format: { type: 'json_object' } })).toBeUndefined();
    expect(answer(plannerModel().behaviour, messages, { messages })).toBe(PLANNER_PROSE);
    const schema = planJsonSchema({ workerIds: ['w1', 'w2'], maxSteps: 3 });
    expect(answer(plannerModel().behaviour, messages, body(schema))).toBe(
      answer(plannerModel().behaviour, messages, body(schema)),
    );
  });
});
