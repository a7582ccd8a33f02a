import type { Attachment } from '../attachments/types.ts';
import type { ExecutorOptions } from '../executor/executor.ts';
import { totalsOf } from '../executor/spend.ts';
import type { StepStatus } from '../records/run-types.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { type CodeRunner, type Score, scoreAnswer } from './score.ts';
import { type Planner, runStrategy, type Strategy, type StrategyRun } from './strategies.ts';
import type { Task } from './taskset.ts';

/**
 * One (task, strategy) result: everything needed for the tables, the charts and a trajectory. `status`:
 * `done` (an answer, scored), `failed` (no answer: the run broke), `unscored` (an answer that could not be
 * scored here, `notScored` says why: no verdict, so it counts neither right nor wrong).
 */
export interface BenchItemResult {
  taskId: string;
  strategyId: string;
  status: 'done' | 'failed' | 'unscored';
  /** The scorer's verdict; false when there was none (`failed`, `unscored`). */
  correct: boolean;
  /** False when the conductor's plan did not parse (the paper's reward 0). */
  parsed: boolean;
  answer?: string;
  extracted?: string;
  /** What the scorer found: a failed test's error, what a program printed against what was expected. */
  scoreDetail?: string;
  /** Why the answer could not be scored here (status `unscored`). */
  notScored?: string;
  error?: string;
  promptTokens: number;
  completionTokens: number;
  /**
   * Bytes of the bench's document the item's requests carried (whole, or its passages), when it was given
   * the document: what local reading saves, beside what it costs in accuracy.
   */
  documentBytes?: number;
  tokensByWorker: Record<string, number>;
  cost: number;
  latencyMs: number;
  plan: { thought?: string; steps: { worker: string; task: string; sees: 'all' | number[] }[] };
  steps: {
    worker: string;
    task: string;
    sees: 'all' | number[];
    answer?: string;
    state: string;
    /** Whether this step's own answer would have scored right (see src/evaluation/attribution.ts). */
    correct?: boolean;
    /** The plan's worker, when it was unavailable and `worker` took the step over (failover). */
    takenOverFrom?: string;
  }[];
  finishedAt: number;
}

/** Whether an item has a verdict (right or wrong): an unscored one is left out of accuracy and comparisons. */
export const isScored = (result: Pick<BenchItemResult, 'status'>): boolean => result.status !== 'unscored';

/** What every item of a bench is run with. */
export interface BenchItemSetup {
  pool: readonly WorkerSpec[];
  transport: ExecutorOptions['transport'];
  planner?: Planner;
  codeRunner?: CodeRunner;
  /** The document the reading strategies answer from (the user's own, attached to the bench). */
  document?: Attachment;
  /**
   * Executor settings shared by every item (timeouts, retry, failover). With `failover`, a step whose
   * worker stays unavailable goes to another worker, as in a run, except in single-worker strategies:
   * their steps are pinned, since their worker is what they measure.
   */
  executor?: Partial<
    Pick<ExecutorOptions, 'firstTokenTimeoutMs' | 'stepTimeoutMs' | 'retry' | 'includeQuestion' | 'failover'>
  >;
}

/** Runs one (task, strategy) item on the executor and scores it; a run that throws is a failed item. */
export async function runItem(
  task: Task,
  strategy: Strategy,
  setup: BenchItemSetup,
  signal: AbortSignal,
  now: () => number,
): Promise<BenchItemResult> {
  const started = now();
  try {
    const run = await runStrategy(strategy.config, task, {
      ...setup.executor,
      pool: setup.pool,
      transport: setup.transport,
      ...(setup.planner ? { planner: setup.planner } : {}),
      ...(setup.document ? { document: setup.document } : {}),
      signal,
    });
    const scores = await scoreRun(task, run, setup.codeRunner);
    return { ...itemResult(task, strategy, run, scores), latencyMs: now() - started, finishedAt: now() };
  } catch (error) {
    return {
      taskId: task.id,
      strategyId: strategy.id,
      status: 'failed',
      correct: false,
      parsed: false,
      error: (error as Error).message,
      promptTokens: 0,
      completionTokens: 0,
      tokensByWorker: {},
      cost: 0,
      latencyMs: now() - started,
      plan: { steps: [] },
      steps: [],
      finishedAt: now(),
    };
  }
}

interface RunScores {
  /** The run's answer's score (none without an answer: not correct). */
  score: Score;
  unscored: boolean;
  /** Each step's own answer's score, by index; none for a step without an answer, or when unscored. */
  steps: (Score | undefined)[];
}

async function scoreRun(
  task: Task,
  run: StrategyRun,
  codeRunner: CodeRunner | undefined,
): Promise<RunScores> {
  const score =
    run.answer !== undefined
      ? await scoreAnswer(task, run.answer, codeRunner)
      : { correct: false, extracted: '' };
  const unscored = score.unscored === true;
  // Each step's own answer is scored too, to tell a lost right answer from one no step had.
  const steps = await Promise.all(
    run.result.steps.map(async (s) => {
      if (s.state !== 'done' || unscored) return undefined;
      if (s.text === run.answer) return score;
      return scoreAnswer(task, s.text, codeRunner);
    }),
  );
  return { score, unscored, steps };
}

/** Every request of each worker's steps (failed and cancelled attempts too), as the run's totals count them. */
function tokensByWorkerOf(steps: readonly StepStatus[]): Record<string, number> {
  const tokensByWorker: Record<string, number> = {};
  for (const step of steps) {
    const used = totalsOf([step]);
    tokensByWorker[step.worker] =
      (tokensByWorker[step.worker] ?? 0) + used.promptTokens + used.completionTokens;
  }
  return tokensByWorker;
}

/** Bytes of files the steps sent, or undefined when no step sent a file. */
function documentBytesOf(steps: readonly StepStatus[]): number | undefined {
  const sent = steps.flatMap((step) => step.sent ?? []);
  return sent.length > 0 ? sent.reduce((sum, file) => sum + file.bytes, 0) : undefined;
}

function itemResult(
  task: Task,
  strategy: Strategy,
  run: StrategyRun,
  { score, unscored, steps: stepScores }: RunScores,
): Omit<BenchItemResult, 'latencyMs' | 'finishedAt'> {
  const documentBytes = documentBytesOf(run.result.steps);
  return {
    taskId: task.id,
    strategyId: strategy.id,
    // An answer that cannot be scored here has no verdict: never a silent "wrong".
    status: run.answer === undefined ? 'failed' : unscored ? 'unscored' : 'done',
    correct: !unscored && score.correct,
    parsed: run.parsed,
    ...(run.answer !== undefined ? { answer: run.answer } : {}),
    extracted: score.extracted,
    ...(unscored
      ? { notScored: score.detail ?? 'it could not be scored here' }
      : score.detail !== undefined && run.answer !== undefined
        ? { scoreDetail: score.detail }
        : {}),
    ...(run.result.failed.length
      ? { error: run.result.failed.map((f) => `step ${f.index}: ${f.reason}`).join('; ') }
      : run.result.error
        ? { error: run.result.error }
        : {}),
    promptTokens: run.result.totals.promptTokens,
    completionTokens: run.result.totals.completionTokens,
    ...(documentBytes !== undefined ? { documentBytes } : {}),
    tokensByWorker: tokensByWorkerOf(run.result.steps),
    cost: run.result.totals.cost,
    plan: run.plan,
    steps: run.result.steps.map((s, i) => {
      const stepScore = stepScores[i];
      const from = s.takeovers?.[0]?.from;
      return {
        worker: s.worker,
        task: s.task,
        sees: s.sees,
        state: s.state,
        ...(s.state === 'done' ? { answer: s.text } : {}),
        ...(stepScore && !stepScore.unscored ? { correct: stepScore.correct } : {}),
        ...(from !== undefined ? { takenOverFrom: from } : {}),
      };
    }),
  };
}
