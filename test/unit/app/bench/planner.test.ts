import { describe, expect, it } from 'vitest';
import { type PlanningConductor, plannerFromConductor } from '../../../../src/app/bench/planner.ts';
import type { Plan } from '../../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../../src/shared/worker-spec.ts';

describe('the conductor as the bench planner', () => {
  const pool: WorkerSpec[] = [
    {
      id: 'w1',
      label: 'One',
      strengths: 'maths',
      providerId: 'custom',
      baseURL: 'https://example.com/v1',
      model: 'm',
      maxConcurrency: 1,
      enabled: true,
      costTier: 'low',
    },
  ];
  const plan: Plan = { steps: [{ worker: 'w1', task: 'Answer.', sees: [] }] };

  it('asks for one step in router mode and passes the pool without URLs', async () => {
    const requests: unknown[] = [];
    const conductor: PlanningConductor = {
      async plan(request) {
        requests.push(request);
        return { plan };
      },
    };
    const planner = plannerFromConductor(conductor, pool);
    expect(await planner.plan('Q?', 'router', new AbortController().signal)).toEqual({ plan, parsed: true });
    await planner.plan('Q?', 'conductor', new AbortController().signal);
    expect(requests).toEqual([
      {
        question: 'Q?',
        mode: 'router',
        maxSteps: 1,
        pool: [{ id: 'w1', label: 'One', strengths: 'maths', costTier: 'low' }],
      },
      {
        question: 'Q?',
        mode: 'conductor',
        maxSteps: 5,
        pool: [{ id: 'w1', label: 'One', strengths: 'maths', costTier: 'low' }],
      },
    ]);
  });

  it('counts repaired and fallback plans as not parsed (the reward-0 case), but still returns them', async () => {
    const answers = [
      { plan, repaired: { error: 'bad JSON' } },
      { plan, fallback: { reason: 'no plan' } },
    ];
    const conductor: PlanningConductor = { plan: async () => answers.shift()! };
    const planner = plannerFromConductor(conductor, pool);
    const signal = new AbortController().signal;
    expect(await planner.plan('Q?', 'conductor', signal)).toEqual({
      plan,
      parsed: false,
      note: 'repaired: bad JSON',
    });
    expect(await planner.plan('Q?', 'conductor', signal)).toEqual({
      plan,
      parsed: false,
      note: 'fallback: no plan',
    });
  });
});
