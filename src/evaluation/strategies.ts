import type { Attachment } from '../attachments/types.ts';
import { codeRunnerWorker } from '../executor/code-runner-worker.ts';
import type { ExecutorOptions } from '../executor/executor.ts';
import { startRun } from '../executor/executor.ts';
import type { RunResult } from '../executor/types.ts';
import type { Plan, PlanMode, Step } from '../shared/plan/index.ts';
import { RUN_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { extractMathAnswer, normalizeMathAnswer } from './math-answer.ts';
import { runFixPlan } from './run-fix.ts';
import { extractChoiceLetter, extractFinalAnswer, extractNumber, normalizeAnswer } from './score.ts';
import type { Task } from './taskset.ts';

/** How one question is answered. Every strategy becomes a plan on the same executor, so all are measured alike. */
export type StrategyConfig =
  | { kind: 'single'; worker: string }
  | { kind: 'router' }
  | { kind: 'conductor' }
  | { kind: 'moa'; proposers: string[]; aggregator: string; layers: number }
  | { kind: 'pipeline'; planner: string; executor: string; verifier: string }
  | { kind: 'self-consistency'; worker: string; samples: number }
  /** Write, run in the code sandbox, fix from the output (src/evaluation/run-fix.ts). */
  | { kind: 'run-fix'; writer: string; fixer: string }
  /**
   * One worker answers from the bench's document, sent whole or as the passages its search finds for the
   * question (issue 40): added as a pair, so the bench shows what local reading costs in quality.
   */
  | { kind: 'reading'; worker: string; as: ReadingAs };

/** How a reading strategy sends the bench's document. */
export type ReadingAs = 'whole' | 'passages';

export interface Strategy {
  id: string;
  label: string;
  config: StrategyConfig;
}

/** The on-device conductor as strategies see it. `parsed` is false when its output was not a valid plan. */
export interface Planner {
  plan(
    question: string,
    mode: PlanMode,
    signal: AbortSignal,
  ): Promise<{ plan: Plan; parsed: boolean; note?: string }>;
}

export interface StrategyPlan {
  plan: Plan;
  /** False when the conductor's own output did not parse and a fallback plan ran (the paper's reward 0). */
  parsed: boolean;
  /** Set for strategies whose answer is not simply the last step's (self-consistency). */
  aggregate?: (answers: string[]) => string;
}

const ANSWER_HINT = 'End with a line "Answer: <your final answer>".';

/** The strategy's name as the user reads it: workers by their labels (`labelOf`), not their ids. */
export function strategyLabel(
  config: StrategyConfig,
  labelOf: (workerId: string) => string = (id) => id,
): string {
  switch (config.kind) {
    case 'single':
      return `Single (${labelOf(config.worker)})`;
    case 'router':
      return 'Router';
    case 'conductor':
      return 'Conductor';
    case 'moa':
      return `MoA ${config.proposers.length}×${config.layers}`;
    case 'pipeline':
      return 'Plan → execute → verify';
    case 'self-consistency':
      return `Self-consistency ×${config.samples} (${labelOf(config.worker)})`;
    case 'run-fix':
      return `Write → run → fix (${labelOf(config.writer)}${config.fixer === config.writer ? '' : `, ${labelOf(config.fixer)}`})`;
    case 'reading':
      return `Reading ${config.as === 'whole' ? 'the whole file' : 'passages'} (${labelOf(config.worker)})`;
  }
}

/** Said when a reading strategy runs without a document. */
export const READING_NEEDS_DOCUMENT =
  'The reading strategies need a document: attach one to the bench (under Task set).';

/**
 * The reading strategy's one step, pinned as a single worker's is: the document whole, or only the
 * passages the device finds for the question (the question is the query, as a plan's `find` would be).
 */
export function readingPlan(worker: string, as: ReadingAs, question: string): Plan {
  return {
    steps: [
      {
        worker,
        task: `Answer the question from the attached document. ${ANSWER_HINT}`,
        sees: [],
        pin: true,
        files: as === 'whole' ? [0] : [{ file: 0, find: question }],
      },
    ],
  };
}

/** Mixture-of-Agents: each layer's proposers see the previous layer; one aggregator sees the last layer. */
export function moaPlan(proposers: string[], aggregator: string, layers: number): Plan {
  const steps: Step[] = [];
  let previous: number[] = [];
  for (let layer = 0; layer < layers; layer++) {
    const current: number[] = [];
    for (const worker of proposers) {
      current.push(steps.length);
      steps.push({
        worker,
        task:
          layer === 0
            ? `Answer the question. ${ANSWER_HINT}`
            : `Earlier answers to the question are above. Critically combine them into a better answer. ${ANSWER_HINT}`,
        sees: previous,
      });
    }
    previous = current;
  }
  steps.push({
    worker: aggregator,
    task: `Several answers to the question are above. Synthesise them into one correct answer. ${ANSWER_HINT}`,
    sees: previous,
  });
  return {
    thought: `Mixture-of-Agents: ${proposers.length} proposers x ${layers} layers, then ${aggregator}`,
    steps,
  };
}

export function pipelinePlan(planner: string, executor: string, verifier: string): Plan {
  return {
    steps: [
      {
        worker: planner,
        task: 'Write a short step-by-step plan to solve the question. Do not solve it.',
        sees: [],
      },
      {
        worker: executor,
        task: `Carry out the plan above and solve the question. ${ANSWER_HINT}`,
        sees: [0],
      },
      {
        worker: verifier,
        task: `Check the solution above for mistakes and give the corrected final answer. ${ANSWER_HINT}`,
        sees: [0, 1],
      },
    ],
  };
}

/** The answer most samples agree on (by what the task's scorer would compare); ties go to the earliest. */
export function majorityVote(answers: string[], task: Pick<Task, 'kind' | 'choices'>): string {
  const keyOf = (answer: string): string => {
    if (task.kind === 'numeric') return String(extractNumber(answer) ?? '');
    if (task.kind === 'choice') return extractChoiceLetter(answer, task.choices?.length ?? 4) ?? '';
    if (task.kind === 'math') return normalizeMathAnswer(extractMathAnswer(answer));
    return normalizeAnswer(extractFinalAnswer(answer));
  };
  const counts = new Map<string, { count: number; first: number }>();
  answers.forEach((answer, i) => {
    const key = keyOf(answer);
    if (key === '') return;
    const entry = counts.get(key) ?? { count: 0, first: i };
    entry.count += 1;
    counts.set(key, entry);
  });
  const best = [...counts.values()].sort((a, b) => b.count - a.count || a.first - b.first)[0];
  return best ? answers[best.first]! : (answers[0] ?? '');
}

/**
 * The question as a worker sees it: a multiple-choice task's options are listed under it, lettered, since
 * the letter is what is scored (MMLU's and GPQA's own prompts do the same).
 */
export function questionOf(task: Pick<Task, 'question' | 'kind' | 'choices'>): string {
  if (task.kind !== 'choice' || !task.choices) return task.question;
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return `${task.question}\n\n${task.choices.map((choice, i) => `${letters[i]}) ${choice}`).join('\n')}`;
}

export async function planFor(
  config: StrategyConfig,
  task: Task,
  planner: Planner | undefined,
  signal: AbortSignal,
): Promise<StrategyPlan> {
  switch (config.kind) {
    // A single worker's strategies measure that worker: their steps are pinned, never failed over.
    case 'single':
      return {
        plan: { steps: [{ worker: config.worker, task: ANSWER_HINT, sees: [], pin: true }] },
        parsed: true,
      };
    case 'router':
    case 'conductor': {
      if (!planner)
        throw new Error(`The ${config.kind} strategy needs the on-device conductor; load a model first.`);
      const { plan, parsed } = await planner.plan(questionOf(task), config.kind, signal);
      return { plan, parsed };
    }
    case 'moa':
      return {
        plan: moaPlan(config.proposers, config.aggregator, config.layers),
        parsed: true,
      };
    case 'pipeline':
      return { plan: pipelinePlan(config.planner, config.executor, config.verifier), parsed: true };
    case 'run-fix':
      return { plan: runFixPlan(config.writer, config.fixer, task), parsed: true };
    case 'reading':
      return { plan: readingPlan(config.worker, config.as, task.question), parsed: true };
    case 'self-consistency':
      return {
        plan: {
          steps: Array.from({ length: config.samples }, () => ({
            worker: config.worker,
            task: ANSWER_HINT,
            sees: [],
            pin: true as const,
          })),
        },
        parsed: true,
        aggregate: (answers) => majorityVote(answers, task),
      };
  }
}

export interface StrategyRun {
  plan: Plan;
  parsed: boolean;
  result: RunResult;
  /** The strategy's answer: the last step's, or the vote's. Undefined when the run produced none. */
  answer?: string;
}

/** Plans with the strategy, then runs the plan on the executor (questions are sent as the first user turn). */
export async function runStrategy(
  config: StrategyConfig,
  task: Task,
  options: Omit<ExecutorOptions, 'maxSteps' | 'attachments'> & {
    planner?: Planner;
    signal: AbortSignal;
    runId?: string;
    /** The bench's document: only reading strategies are given it. */
    document?: Attachment;
  },
): Promise<StrategyRun> {
  const { planner, signal, runId, document, ...executor } = options;
  if (config.kind === 'reading' && !document) throw new Error(READING_NEEDS_DOCUMENT);
  const { plan, parsed, aggregate } = await planFor(config, task, planner, signal);
  // The code runner is built in: a plan that gives it a step finds it in the pool.
  const runs =
    plan.steps.some((s) => s.worker === RUN_WORKER) && !executor.pool.some((w) => w.id === RUN_WORKER);
  const handle = startRun({
    ...executor,
    ...(runs ? { pool: [...executor.pool, codeRunnerWorker()] } : {}),
    ...(runId ? { runId } : {}),
    question: questionOf(task),
    ...(config.kind === 'reading' && document ? { attachments: [document] } : {}),
    mode: config.kind,
    plan,
    // Baselines are not bound by the conductor's step cap (MoA 3×2 has 7 steps).
    maxSteps: Math.max(plan.steps.length, 1),
  });
  const onAbort = () => handle.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await handle.result;
    const answers = result.steps.filter((s) => s.state === 'done').map((s) => s.text);
    const answer = aggregate ? (answers.length ? aggregate(answers) : undefined) : result.answer;
    return { plan, parsed, result, ...(answer !== undefined ? { answer } : {}) };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Workers a strategy needs, for checking a pool before a bench starts. */
export function workersOf(config: StrategyConfig): string[] {
  switch (config.kind) {
    case 'single':
    case 'self-consistency':
    case 'reading':
      return [config.worker];
    case 'moa':
      return [...new Set([...config.proposers, config.aggregator])];
    case 'pipeline':
      return [...new Set([config.planner, config.executor, config.verifier])];
    case 'run-fix':
      return [...new Set([config.writer, config.fixer])];
    default:
      return [];
  }
}

export function missingWorkers(config: StrategyConfig, pool: readonly WorkerSpec[]): string[] {
  const ids = new Set(pool.map((w) => w.id));
  return workersOf(config).filter((id) => !ids.has(id));
}
