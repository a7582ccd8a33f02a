import type { Attachment } from '../attachments/types.ts';
import type { Step } from '../shared/plan/index.ts';
import { LOCAL_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { assembleMessages } from './context.ts';
import { priceOf } from './spend.ts';
import { estimatedStepFiles, promptTokensOf, withStepFiles } from './step-files.ts';
import { fitHistory, type TurnHistory } from './turn-history.ts';

/** Tokens an answer is assumed to take when its worker has no answered step in the history yet. */
export const DEFAULT_ANSWER_TOKENS = 400;

/** How long a worker's answers have been: the mean completion tokens over `answers` answered steps. */
export interface AnswerLength {
  tokens: number;
  answers: number;
}

/**
 * The identity under which a worker's past answer lengths are kept: its model at its endpoint, since the
 * id (`w1`) names whichever worker holds that place in the pool of the day.
 */
export function answerKey(worker: Pick<WorkerSpec, 'baseURL' | 'model'>): string {
  return `${worker.baseURL}\u0000${worker.model}`;
}

/** Where a step's answer length comes from. */
export type AnswerBasis =
  /** The mean of the worker's answers in the history. */
  | 'history'
  /** DEFAULT_ANSWER_TOKENS (or the caller's default): the worker has not answered yet. */
  | 'default'
  /** A `self` step: the conductor on this device checks the workflow; nothing is sent or paid. */
  | 'conductor';

export interface StepEstimate {
  index: number;
  worker: string;
  inputTokens: number;
  outputTokens: number;
  /** US dollars; 0 on this device (`local`, `self`); undefined when the worker has no price. */
  cost?: number;
  basis: AnswerBasis;
}

export interface PlanEstimate {
  steps: StepEstimate[];
  inputTokens: number;
  outputTokens: number;
  /** US dollars over the steps that have a price. */
  cost: number;
  /** Workers (ids) of steps without a price: their cost is not in `cost`. */
  unpriced: string[];
  /** The answer length assumed for workers with no history (when some step used it). */
  defaultAnswerTokens?: number;
  /** Set when the plan has `self` steps: corrective steps they may add are not in the estimate. */
  selfChecks?: true;
}

export interface EstimateInput {
  question: string;
  /** Whether every step gets the question as its first turn (the executor's `includeQuestion`, default true). */
  includeQuestion?: boolean;
  /** The question's attached files: each step's input counts the ones it gets (text and images). */
  attachments?: readonly Attachment[];
  /** Past this many tokens (about), a file sent as `"all"` counts as passages (default 8,000). */
  wholeFileTokens?: number | null;
  steps: readonly Step[];
  pool: readonly WorkerSpec[];
  /** Past answer lengths by `answerKey`. */
  answerLengths?: ReadonlyMap<string, AnswerLength>;
  defaultAnswerTokens?: number;
  /** A follow-up's earlier turns: each step's input includes its worker's share of them, as the executor sends it. */
  history?: TurnHistory;
  /** The thread's standing instructions: in every worker step's input, so huge ones show in the price. */
  instructions?: string;
}

/**
 * What a plan will cost before it runs: each step's input is the context the executor will send it
 * (`assembleMessages`: system prompt, question, the (task, answer) pairs it sees, its task), with each
 * earlier answer as long as that worker's answers have been; its output is its worker's usual answer
 * length. Priced from the workers' price tables. Pure: the same plan and history give the same figure.
 */
export function estimatePlan(input: EstimateInput): PlanEstimate {
  const workers = new Map(input.pool.map((w) => [w.id, w]));
  const fallback = input.defaultAnswerTokens ?? DEFAULT_ANSWER_TOKENS;
  const answerOf = (worker: WorkerSpec | undefined): { tokens: number; basis: AnswerBasis } => {
    const known = worker ? input.answerLengths?.get(answerKey(worker)) : undefined;
    return known && known.answers > 0
      ? { tokens: Math.round(known.tokens), basis: 'history' }
      : { tokens: fallback, basis: 'default' };
  };
  // Placeholder answers of the expected length: the context then follows exactly the executor's rules
  // (which steps are seen, `self` steps left out) instead of a second copy of them here.
  const answers = input.steps.map((step) =>
    step.worker === SELF_WORKER ? undefined : 'x'.repeat(answerOf(workers.get(step.worker)).tokens * 4),
  );
  const estimate: PlanEstimate = { steps: [], inputTokens: 0, outputTokens: 0, cost: 0, unpriced: [] };
  input.steps.forEach((step, index) => {
    if (step.worker === SELF_WORKER) {
      estimate.selfChecks = true;
      estimate.steps.push({
        index,
        worker: step.worker,
        inputTokens: 0,
        outputTokens: 0,
        cost: 0,
        basis: 'conductor',
      });
      return;
    }
    const worker = workers.get(step.worker);
    const messages = withStepFiles(
      assembleMessages({
        question: input.question,
        includeQuestion: input.includeQuestion ?? true,
        systemPrompt: worker?.systemPrompt,
        ...(input.instructions ? { instructions: input.instructions } : {}),
        steps: input.steps,
        answers,
        index,
        ...(input.history && worker
          ? {
              history: fitHistory(
                input.history.turns,
                input.history.budgetFor(worker),
                undefined,
                input.history.ranking,
              ).messages,
            }
          : {}),
      }),
      estimatedStepFiles(step, input.attachments ?? [], input.wholeFileTokens),
    );
    const answer = answerOf(worker);
    const usage = {
      promptTokens: promptTokensOf(messages, worker?.model ?? ''),
      completionTokens: answer.tokens,
    };
    const cost = step.worker === LOCAL_WORKER ? 0 : priceOf(worker, usage);
    const stepEstimate: StepEstimate = {
      index,
      worker: step.worker,
      inputTokens: usage.promptTokens,
      outputTokens: usage.completionTokens,
      basis: answer.basis,
    };
    if (cost !== undefined) stepEstimate.cost = cost;
    else if (!estimate.unpriced.includes(step.worker)) estimate.unpriced.push(step.worker);
    if (answer.basis === 'default') estimate.defaultAnswerTokens = fallback;
    estimate.steps.push(stepEstimate);
    estimate.inputTokens += usage.promptTokens;
    estimate.outputTokens += usage.completionTokens;
    estimate.cost += cost ?? 0;
  });
  return estimate;
}

/** Past answer lengths from answered steps (completion tokens as the provider counted them, or estimated). */
export function answerLengthsOf(
  runs: Iterable<{
    pool: readonly Pick<WorkerSpec, 'id' | 'baseURL' | 'model'>[];
    steps: readonly { worker: string; state: string; usage?: { completionTokens: number } }[];
  }>,
): Map<string, AnswerLength> {
  const sums = new Map<string, { total: number; answers: number }>();
  for (const run of runs) {
    const workers = new Map(run.pool.map((w) => [w.id, w]));
    for (const step of run.steps) {
      const worker = workers.get(step.worker);
      if (!worker || step.state !== 'done' || !step.usage) continue;
      const key = answerKey(worker);
      const sum = sums.get(key) ?? { total: 0, answers: 0 };
      sum.total += step.usage.completionTokens;
      sum.answers += 1;
      sums.set(key, sum);
    }
  }
  const lengths = new Map<string, AnswerLength>();
  for (const [key, sum] of sums) lengths.set(key, { tokens: sum.total / sum.answers, answers: sum.answers });
  return lengths;
}
