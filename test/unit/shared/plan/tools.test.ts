import { describe, expect, it } from 'vitest';
import { planJsonSchema, validatePlan } from '../../../../src/shared/plan/index.ts';
import { mayCallTools, type PlanTools } from '../../../../src/shared/plan/tools.ts';

const tools: PlanTools = {
  names: ['tracker.search_issues', 'tracker.delete_issue'],
  toolWorkers: ['gpt', 'claude'],
};
const options = {
  workerIds: ['gpt', 'claude', 'old', 'run'],
  workerLabels: { gpt: 'GPT', claude: 'Claude', old: 'Old', run: 'run' },
  tools,
};

const plan = (step: Record<string, unknown>) => ({
  steps: [{ worker: 'gpt', task: 'Find it.', sees: [], ...step }],
});

describe("a step's tools", () => {
  it('keeps a grant of offered tools, each once', () => {
    const result = validatePlan(plan({ tools: ['tracker.search_issues', 'tracker.search_issues'] }), options);
    expect(result.ok && result.plan.steps[0]?.tools).toEqual(['tracker.search_issues']);
  });

  it('drops an empty grant', () => {
    const result = validatePlan(plan({ tools: [] }), options);
    expect(result.ok && 'tools' in (result.plan.steps[0] ?? {})).toBe(false);
  });

  it('rejects a tool that is not offered, naming it', () => {
    const result = validatePlan(plan({ tools: ['tracker.drop_database'] }), options);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]).toMatchObject({ code: 'unknown-tool', step: 0 });
    expect(!result.ok && result.message).toContain(
      '"tracker.drop_database", which is not among the tools offered',
    );
  });

  it('rejects tools on a worker whose model cannot call tools', () => {
    const result = validatePlan(plan({ worker: 'old', tools: ['tracker.search_issues'] }), options);
    expect(!result.ok && result.issues[0]).toMatchObject({ code: 'tools-not-allowed' });
    expect(!result.ok && result.message).toContain('"Old" (old), whose model cannot call tools');
  });

  it('rejects tools on the code runner and the on-device model, offered or not', () => {
    const run = validatePlan(
      {
        steps: [
          { worker: 'gpt', task: 'Code.', sees: [] },
          { worker: 'run', task: 'Run.', sees: [0], tools: ['tracker.search_issues'] },
        ],
      },
      options,
    );
    expect(!run.ok && run.issues[0]).toMatchObject({ code: 'tools-not-allowed', step: 1 });
    const local = validatePlan(plan({ worker: 'local', tools: ['x.y'] }), { workerIds: ['local'] });
    expect(!local.ok && local.issues.map((i) => i.code)).toEqual(['tools-not-allowed']);
  });

  it('rejects a list that is not of names', () => {
    const result = validatePlan(plan({ tools: 'tracker.search_issues' }), options);
    expect(!result.ok && result.issues[0]?.code).toBe('tools-invalid');
  });
});

describe('the decoding schema and tools', () => {
  const base = { workerIds: ['gpt', 'old', 'run'], maxSteps: 3 };

  it('has no tools at all when none is offered', () => {
    expect(JSON.stringify(planJsonSchema(base))).not.toContain('tools');
    expect(
      JSON.stringify(planJsonSchema({ ...base, tools: { names: [], toolWorkers: ['gpt'] } })),
    ).not.toContain('tools');
  });

  it('lets only the workers that call tools name them, from the offered list', () => {
    const schema = planJsonSchema({
      ...base,
      tools: { names: ['tracker.search_issues'], toolWorkers: ['gpt'] },
    });
    const steps = schema.properties as { steps: { items: { anyOf: Record<string, unknown>[] } } };
    const [takers, others] = steps.steps.items.anyOf as {
      properties: { worker: { enum: string[] }; tools?: unknown };
    }[];
    expect(takers?.properties.worker.enum).toEqual(['gpt']);
    expect(takers?.properties.tools).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['tracker.search_issues'] },
      maxItems: 1,
    });
    expect(others?.properties.worker.enum).toEqual(['old', 'run']);
    expect(others?.properties.tools).toBeUndefined();
  });
});

describe('mayCallTools', () => {
  it('is true when a step is granted a tool, or a self step may write one that is', () => {
    expect(mayCallTools([{ worker: 'gpt', tools: [] }, { worker: 'claude' }])).toBe(false);
    expect(mayCallTools([{ worker: 'gpt', tools: ['tracker.search_issues'] }])).toBe(true);
    expect(mayCallTools([{ worker: 'gpt' }, { worker: 'self' }])).toBe(true);
  });
});
