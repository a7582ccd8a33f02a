import { describe, expect, it } from 'vitest';
import type { PlanRequest } from '../../../../src/shared/conductor-api.ts';
import { checkPlan } from '../../../../src/shared/plan/checks.ts';
import { validatePlan } from '../../../../src/shared/plan/validate.ts';
import { planPrompt } from '../../../../workers/engine-host.ts';
import { conductorShots, mapRoles } from '../../../../workers/prompt/few-shots.ts';

// The code runner (`run`) as the conductor sees it: one line of the pool, one example, rules that keep a
// run step useful, and never the router's pick.
const pool: PlanRequest['pool'] = [
  { id: 'w1', label: 'Cheap', strengths: 'fast answers', costTier: 'low' },
  { id: 'w2', label: 'Coder', strengths: 'careful code and review', costTier: 'high' },
  {
    id: 'run',
    label: 'Code runner',
    strengths:
      'runs the Python or JavaScript code of the steps it sees; answers with the output or the error',
  },
];
const request = (mode: PlanRequest['mode'], workers = pool): PlanRequest => ({
  question: 'Write is_even in Python.',
  pool: workers,
  mode,
  maxSteps: 5,
  maxDepth: 2,
});

describe('the conductor and the run worker', () => {
  it('offers run in one short line, and shows write → run → fix instead of plan → code → check', () => {
    const { messages } = planPrompt(request('conductor'));
    const system = messages[0]?.content ?? '';
    const lines = system.split('\n').filter((line) => line.startsWith('- run:'));
    expect(lines).toEqual(['- run: runs the code it sees, shows output or error.']);
    const plans = messages.filter((m) => m.role === 'assistant').map((m) => JSON.parse(m.content));
    const code = plans.find((p) => p.steps.some((s: { worker: string }) => s.worker === 'run'));
    // The fix is run before it is shown; the last run's answer shows code and output,
    // and the fixer reads the run, whose answer holds the code it ran.
    expect(code?.steps).toEqual([
      { worker: 'w2', task: 'Write it with asserts.', sees: [] },
      { worker: 'run', task: 'Run it.', sees: [0] },
      { worker: 'w2', task: 'Fix any failure.', sees: [1] },
      { worker: 'run', task: 'Run it.', sees: [2] },
    ]);
    // Where the limit leaves no room for the second run, write → run → fix stays.
    const three = planPrompt({ ...request('conductor'), maxSteps: 3 }).messages;
    const short = three.filter((m) => m.role === 'assistant').map((m) => JSON.parse(m.content));
    expect(short.find((p) => p.steps.some((s: { worker: string }) => s.worker === 'run'))?.steps).toEqual([
      { worker: 'w2', task: 'Write it with asserts.', sees: [] },
      { worker: 'run', task: 'Run it.', sees: [0] },
      { worker: 'w2', task: 'Fix any failure; give the final code.', sees: [0, 1] },
    ]);
    expect(plans.some((p) => p.thought === 'Plan, code, check.')).toBe(false);
    // Without run in the pool, the old code example stays and run is named nowhere.
    const without = planPrompt(request('conductor', pool.slice(0, 2))).messages;
    expect(without.map((m) => m.content).join('\n')).not.toMatch(/\brun\b"|- run:/);
    expect(without.some((m) => m.content.includes('Plan, code, check.'))).toBe(true);
  });

  it('gives run no other role: never the cheap, coder or strong worker of an example', () => {
    const roles = mapRoles([
      { id: 'run', label: 'Code runner', strengths: 'runs code', costTier: 'low' },
      ...pool,
    ]);
    expect(roles.runner).toBe('run');
    expect([
      roles.cheap,
      roles.coder,
      roles.strong,
      roles.reasoner,
      roles.proposerA,
      roles.proposerB,
    ]).not.toContain('run');
    const shots = conductorShots(roles, { maxSteps: 2, allowSelf: false });
    expect(shots.every((s) => s.plan.steps.every((step) => step.worker !== 'run'))).toBe(true);
  });

  it('lets the decoding schema and validation name run in conductor mode; the router never sees it', () => {
    const conductor = planPrompt(request('conductor'));
    expect(conductor.limits.workerIds).toContain('run');
    expect(JSON.stringify(conductor.jsonSchema)).toContain('"run"');
    const router = planPrompt(request('router'));
    expect(router.limits.workerIds).toEqual(['w1', 'w2']);
    expect(JSON.stringify(router.jsonSchema)).not.toContain('"run"');
    expect(router.messages.map((m) => m.content).join('\n')).not.toContain('- run:');
  });

  it('rejects a run step that sees no step, saying why', () => {
    const options = { workerIds: ['w1', 'run'], workerLabels: { w1: 'Cheap', run: 'Code runner' } };
    for (const [index, sees] of [
      [0, 'all'],
      [1, []],
    ] as const) {
      const steps = [
        { worker: 'w1', task: 'Write it.', sees: [] },
        { worker: 'run', task: 'Run it.', sees },
      ];
      if (index === 0) steps.reverse();
      const result = validatePlan({ steps }, options);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.issues.map((i) => i.code)).toContain('run-sees-nothing');
      expect(!result.ok && result.issues.find((i) => i.code === 'run-sees-nothing')?.message).toBe(
        `Step ${index} gives the code runner (run) nothing to run: it runs the code of the steps it sees, and sees none. Let it see the step that writes the code.`,
      );
    }
    expect(
      validatePlan(
        {
          steps: [
            { worker: 'w1', task: 'Write it.', sees: [] },
            { worker: 'run', task: 'Run it.', sees: 'all' },
          ],
        },
        options,
      ).ok,
    ).toBe(true);
  });

  it('warns when a run step sees only steps that hold no code, and changes nothing', () => {
    const plan = {
      steps: [
        { worker: 'w1', task: 'Write it.', sees: [] },
        { worker: 'run', task: 'Run it.', sees: [0] },
        { worker: 'run', task: 'Run it again.', sees: [1] },
        { worker: 'w1', task: 'Final.', sees: 'all' as const },
      ],
    };
    const check = checkPlan(plan, { workerLabels: { w1: 'Cheap', run: 'Code runner' } });
    expect(check.findings).toEqual([
      {
        rule: 'run-sees-no-code',
        stepIndex: 2,
        message:
          'Step 2 ("Code runner") sees only steps that write no code, so it will answer "No code to run".',
        fix: 'Nothing was changed: let it see the step that writes the code.',
        blocking: false,
      },
    ]);
    expect(check.plan).toBe(plan);
    expect(check.blocked).toBe(false);
  });
});
