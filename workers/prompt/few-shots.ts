import type { Plan } from '../../src/shared/plan/index.ts';
import { SELF_WORKER } from '../../src/shared/worker-ids.ts';

/**
 * Example workflows shown to the conductor as earlier chat turns. They are written against roles (cheap,
 * reasoner, coder, ...) that are mapped onto the real pool's ids, so every example is a valid plan for the
 * schema the model is constrained to (the worker enum is the pool's ids). ASCII only: the tiny test model
 * rejects anything else.
 */

export interface ShotWorker {
  id: string;
  label: string;
  strengths: string;
  costTier?: 'low' | 'medium' | 'high';
}

/** Roles the examples need, each mapped to one pool id. */
export interface Roles {
  cheap: string;
  strong: string;
  coder: string;
  reasoner: string;
  /** Two workers that differ where the pool allows it (parallel proposers). */
  proposerA: string;
  proposerB: string;
}

const TIER: Record<string, number> = { low: 0, medium: 1, high: 2 };

function tier(w: ShotWorker): number {
  return TIER[w.costTier ?? 'medium'] ?? 1;
}

function bestBy(pool: readonly ShotWorker[], pattern: RegExp, fallback: ShotWorker): ShotWorker {
  const matches = pool.filter((w) => pattern.test(`${w.label} ${w.strengths}`));
  // Among matches, the strongest (highest tier) wins; pool order breaks ties.
  return (
    matches.reduce<ShotWorker | undefined>(
      (best, w) => (!best || tier(w) > tier(best) ? w : best),
      undefined,
    ) ?? fallback
  );
}

/** Maps the example roles onto a pool (at least one worker). */
export function mapRoles(pool: readonly ShotWorker[]): Roles {
  const first = pool[0];
  if (!first) throw new Error('mapRoles: the pool is empty');
  const strong = pool.reduce((best, w) => (tier(w) > tier(best) ? w : best), first);
  const cheap = pool.reduce((best, w) => (tier(w) < tier(best) ? w : best), first);
  const coder = bestBy(pool, /code|coding|program|software|debug/i, strong);
  const reasoner = bestBy(pool, /reason|math|logic|plan|analy/i, strong);
  const others = pool.filter((w) => w.id !== strong.id);
  const proposerA = others[0] ?? strong;
  const proposerB = others[1] ?? strong;
  return {
    cheap: cheap.id,
    strong: strong.id,
    coder: coder.id,
    reasoner: reasoner.id,
    proposerA: proposerA.id,
    proposerB: proposerB.id,
  };
}

export interface Shot {
  /** Which shape this example shows. */
  shape: 'one-step' | 'pipeline' | 'parallel' | 'recursion';
  question: string;
  plan: Plan;
}

/** Full workflows for `conductor` mode, filtered to the step limit and to whether `self` is allowed. */
export function conductorShots(roles: Roles, options: { maxSteps: number; allowSelf: boolean }): Shot[] {
  const shots: Shot[] = [
    {
      shape: 'one-step',
      question: 'What is the capital of Australia?',
      plan: {
        thought: 'A simple fact: one cheap worker is enough.',
        steps: [
          {
            worker: roles.cheap,
            task: 'What is the capital of Australia? Answer in one sentence.',
            sees: [],
          },
        ],
      },
    },
    {
      shape: 'pipeline',
      question: 'Write a Python function that merges overlapping intervals.',
      plan: {
        thought: 'Plan, then code, then check the code against the plan.',
        steps: [
          {
            worker: roles.reasoner,
            task: 'Explain step by step how to merge overlapping intervals given as [start, end] pairs, with edge cases.',
            sees: [],
          },
          {
            worker: roles.coder,
            task: 'Write a Python function merge(intervals) that follows this plan. Return only the code.',
            sees: [0],
          },
          {
            worker: roles.strong,
            task: 'Check this code against the plan and the edge cases. Reply with the final, corrected code.',
            sees: 'all',
          },
        ],
      },
    },
    {
      shape: 'parallel',
      question: 'Should a small team use a monorepo or many repositories?',
      plan: {
        thought: 'Two independent views in parallel, then one balanced answer.',
        steps: [
          {
            worker: roles.proposerA,
            task: 'Give the strongest case for a monorepo for a team of five.',
            sees: [],
          },
          {
            worker: roles.proposerB,
            task: 'Give the strongest case for many repositories for a team of five.',
            sees: [],
          },
          {
            worker: roles.strong,
            task: 'Should a team of five use a monorepo or many repositories? Weigh both views and give a clear recommendation.',
            sees: [0, 1],
          },
        ],
      },
    },
  ];
  if (options.allowSelf) {
    shots.push({
      shape: 'recursion',
      question: 'Prove that the sum of two odd numbers is even.',
      plan: {
        thought: 'One proof, then I check it and add a fix only if needed.',
        steps: [
          {
            worker: roles.reasoner,
            task: 'Prove that the sum of two odd integers is even. Be rigorous and short.',
            sees: [],
          },
          { worker: SELF_WORKER, task: 'Check the proof; accept it or add a corrective step.', sees: 'all' },
        ],
      },
    });
  }
  return shots.filter((s) => s.plan.steps.length <= options.maxSteps);
}

/** One-step examples for `router` mode: each picks the single best worker. */
export function routerShots(roles: Roles): Shot[] {
  return [
    {
      shape: 'one-step',
      question: 'What is the capital of Australia?',
      plan: {
        thought: 'A simple fact: the cheapest worker.',
        steps: [
          {
            worker: roles.cheap,
            task: 'What is the capital of Australia? Answer in one sentence.',
            sees: [],
          },
        ],
      },
    },
    {
      shape: 'one-step',
      question: 'Write a Python function that merges overlapping intervals.',
      plan: {
        thought: 'A coding task: the best coder.',
        steps: [
          {
            worker: roles.coder,
            task: 'Write a Python function merge(intervals) that merges overlapping [start, end] intervals. Handle edge cases.',
            sees: [],
          },
        ],
      },
    },
    {
      shape: 'one-step',
      question: 'Prove that the sum of two odd numbers is even.',
      plan: {
        thought: 'A proof: the best reasoner.',
        steps: [
          {
            worker: roles.reasoner,
            task: 'Prove that the sum of two odd integers is even. Be rigorous and short.',
            sees: [],
          },
        ],
      },
    },
  ];
}
