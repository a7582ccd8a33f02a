import type { Plan, Step } from '../../src/shared/plan/index.ts';
import type { FileEntry } from '../../src/shared/plan/schema.ts';
import { RUN_WORKER, SELF_WORKER } from '../../src/shared/worker-ids.ts';

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
  /** Searches the web on its provider's servers. */
  webSearch?: true;
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
  /** A worker that searches the web, when the pool has one (the cheapest): questions about recent events. */
  searcher?: string;
  /** The code sandbox (`run`), when the pool offers it: code is written, run, and fixed from its output. */
  runner?: string;
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

/** Maps the example roles onto a pool (at least one worker besides the code sandbox, which takes no role but its own). */
export function mapRoles(everyWorker: readonly ShotWorker[]): Roles {
  const runner = everyWorker.find((w) => w.id === RUN_WORKER);
  const models = everyWorker.filter((w) => w.id !== RUN_WORKER);
  const pool = models.length > 0 ? models : everyWorker;
  const first = pool[0];
  if (!first) throw new Error('mapRoles: the pool is empty');
  const strong = pool.reduce((best, w) => (tier(w) > tier(best) ? w : best), first);
  const cheap = pool.reduce((best, w) => (tier(w) < tier(best) ? w : best), first);
  const coder = bestBy(pool, /code|coding|program|software|debug/i, strong);
  const reasoner = bestBy(pool, /reason|math|logic|plan|analy/i, strong);
  const others = pool.filter((w) => w.id !== strong.id);
  const proposerA = others[0] ?? strong;
  const proposerB = others[1] ?? strong;
  const searchers = pool.filter((w) => w.webSearch);
  const searcher = searchers.reduce<ShotWorker | undefined>(
    (best, w) => (!best || tier(w) < tier(best) ? w : best),
    undefined,
  );
  return {
    cheap: cheap.id,
    strong: strong.id,
    coder: coder.id,
    reasoner: reasoner.id,
    proposerA: proposerA.id,
    proposerB: proposerB.id,
    ...(searcher ? { searcher: searcher.id } : {}),
    ...(runner ? { runner: runner.id } : {}),
  };
}

export interface Shot {
  /** Which shape this example shows. */
  shape: 'one-step' | 'search' | 'pipeline' | 'run-fix' | 'parallel' | 'recursion';
  question: string;
  plan: Plan;
}

/**
 * A step of an example with its task twice: as an instruction, for workers that are sent the question
 * (the executor's default), and restated in full, for workers that are not.
 */
interface ShotStep {
  worker: string;
  task: string;
  alone: string;
  sees: Step['sees'];
}

interface ShotDraft {
  shape: Shot['shape'];
  question: string;
  thought?: string;
  steps: ShotStep[];
}

/** What the examples' workers receive: the question too (default), or only their tasks. */
export interface ShotOptions {
  includeQuestion?: boolean;
}

function finish(draft: ShotDraft, options: ShotOptions): Shot {
  const withQuestion = options.includeQuestion ?? true;
  const steps = draft.steps.map((s) => ({
    worker: s.worker,
    task: withQuestion ? s.task : s.alone,
    sees: s.sees,
  }));
  const plan: Plan = draft.thought === undefined ? { steps } : { thought: draft.thought, steps };
  return { shape: draft.shape, question: draft.question, plan };
}

/**
 * A question about recent events goes to a worker that searches the web: shown only to a pool that has one
 * (without one the example would teach nothing, and cost its tokens on every plan).
 */
function searchShot(roles: Roles, thought: boolean): ShotDraft[] {
  if (!roles.searcher) return [];
  return [
    {
      shape: 'search',
      question: 'Who won the last F1 race?',
      ...(thought ? { thought: 'Recent news: search.' } : {}),
      steps: [
        {
          worker: roles.searcher,
          task: 'Search the web; cite sources.',
          alone: 'Who won the last F1 race? Search the web; cite sources.',
          sees: [],
        },
      ],
    },
  ];
}

/**
 * The code example. With the code sandbox in the pool: write, run, fix from the real output, and run the fix
 * (a fix shown unrun may be as wrong as the first code); the last run's answer, the final one, shows the
 * code and its output, and its fixer sees only the run, whose answer holds the code it ran. Four steps
 * only where the limit allows them; else write, run, fix. Without the sandbox: plan, code, check. One
 * example, not several: the conductor prefills every token of the examples.
 */
function codeShot(roles: Roles, maxSteps: number): ShotDraft[] {
  const question = 'Write a Python function that merges overlapping intervals.';
  if (roles.runner) {
    return [
      {
        shape: 'run-fix',
        question,
        thought: maxSteps >= 4 ? 'Code, run, fix, run.' : 'Code, run, fix.',
        steps: [
          {
            worker: roles.coder,
            task: 'Write it with asserts.',
            alone: 'Write Python merge(intervals) with asserts.',
            sees: [],
          },
          { worker: roles.runner, task: 'Run it.', alone: 'Run it.', sees: [0] },
          ...(maxSteps >= 4
            ? [
                {
                  worker: roles.coder,
                  task: 'Fix any failure.',
                  alone: 'Fix merge(intervals) if the run failed; give the whole code.',
                  sees: [1],
                },
                { worker: roles.runner, task: 'Run it.', alone: 'Run it.', sees: [2] },
              ]
            : [
                {
                  worker: roles.coder,
                  task: 'Fix any failure; give the final code.',
                  alone: 'Fix merge(intervals) if the run failed; give the final code.',
                  sees: [0, 1],
                },
              ]),
        ],
      },
    ];
  }
  return [
    {
      shape: 'pipeline',
      question,
      thought: 'Plan, code, check.',
      steps: [
        {
          worker: roles.reasoner,
          task: 'List the steps and edge cases.',
          alone: 'List the steps and edge cases of merging overlapping intervals.',
          sees: [],
        },
        {
          worker: roles.coder,
          task: 'Code this plan.',
          alone: 'Write Python merge(intervals) following this plan.',
          sees: [0],
        },
        {
          worker: roles.strong,
          task: 'Check the code; give the final version.',
          alone: 'Check this merge code against the plan; give the final code.',
          sees: 'all',
        },
      ],
    },
  ];
}

/**
 * Full workflows for `conductor` mode, filtered to the step limit and to whether `self` is allowed. Short on
 * purpose: the conductor prefills every token of them before it writes a plan, and copies their length.
 */
export function conductorShots(
  roles: Roles,
  options: { maxSteps: number; allowSelf: boolean } & ShotOptions,
): Shot[] {
  const drafts: ShotDraft[] = [
    {
      shape: 'one-step',
      question: 'What is the capital of Australia?',
      thought: 'A simple fact.',
      steps: [
        {
          worker: roles.cheap,
          task: 'Answer in one sentence.',
          alone: 'What is the capital of Australia? One sentence.',
          sees: [],
        },
      ],
    },
    ...searchShot(roles, true),
    ...codeShot(roles, options.maxSteps),
    {
      shape: 'parallel',
      question: 'Monorepo or many repos for a team of five?',
      thought: 'Two views, a verdict.',
      steps: [
        {
          worker: roles.proposerA,
          task: 'Argue for a monorepo.',
          alone: 'Argue for a monorepo for a team of five.',
          sees: [],
        },
        {
          worker: roles.proposerB,
          task: 'Argue for many repos.',
          alone: 'Argue for many repos for a team of five.',
          sees: [],
        },
        {
          worker: roles.strong,
          task: 'Weigh both; recommend one.',
          alone: 'Monorepo or many repos for a team of five? Weigh both views; recommend one.',
          sees: [0, 1],
        },
      ],
    },
  ];
  if (options.allowSelf) {
    drafts.push({
      shape: 'recursion',
      question: 'Prove that the sum of two odd numbers is even.',
      thought: 'Prove, then I check.',
      steps: [
        {
          worker: roles.reasoner,
          task: 'Prove it, briefly.',
          alone: 'Prove that the sum of two odd integers is even, briefly.',
          sees: [],
        },
        { worker: SELF_WORKER, task: 'Check the proof.', alone: 'Check the proof.', sees: 'all' },
      ],
    });
  }
  return drafts.map((d) => finish(d, options)).filter((s) => s.plan.steps.length <= options.maxSteps);
}

/**
 * One-step examples for `router` mode: each picks the single best worker. No thought: the router's output
 * constraint does not ask for one (it answers fast), so the examples do not show one.
 */
export function routerShots(roles: Roles, options: ShotOptions = {}): Shot[] {
  const drafts: ShotDraft[] = [
    {
      shape: 'one-step',
      question: 'What is the capital of Australia?',
      steps: [
        {
          worker: roles.cheap,
          task: 'Answer in one sentence.',
          alone: 'What is the capital of Australia? One sentence.',
          sees: [],
        },
      ],
    },
    ...searchShot(roles, false),
    {
      shape: 'one-step',
      question: 'Write a Python function that merges overlapping intervals.',
      steps: [
        {
          worker: roles.coder,
          task: 'Write the code; handle edge cases.',
          alone: 'Write Python merge(intervals) for overlapping intervals; handle edge cases.',
          sees: [],
        },
      ],
    },
    {
      shape: 'one-step',
      question: 'Prove that the sum of two odd numbers is even.',
      steps: [
        {
          worker: roles.reasoner,
          task: 'Prove it, briefly.',
          alone: 'Prove that the sum of two odd integers is even, briefly.',
          sees: [],
        },
      ],
    },
  ];
  return drafts.map((d) => finish(d, options));
}

/**
 * How a step takes a file, shown only when the question carries files (workers/prompt/files.ts), so a
 * question without them prefills none of it: whole to sum a file up, passages to answer from one part.
 */
export const FILE_SHOTS: readonly { question: string; files: FileEntry[] }[] = [
  { question: 'Summarise this.', files: [0] },
  { question: 'What does clause 7 say?', files: [{ file: 0, find: 'clause 7' }] },
];
