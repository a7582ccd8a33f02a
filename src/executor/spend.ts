import { ProviderError } from '../providers/errors.ts';
import type { RequestOutcome, RequestSpend, RunTotals, StepStatus, Usage } from '../records/run-types.ts';
import type { PartsMessage } from '../shared/chat.ts';
import type { Estimator } from '../shared/token-estimate.ts';
import { currentEstimator, estimateTokens } from '../shared/token-estimate.ts';
import { LOCAL_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { promptTokensOf } from './step-files.ts';

// Estimates for what a provider did not count live with the tokenizer that makes them.
export { estimatePromptTokens, estimateTokens } from '../shared/token-estimate.ts';

/**
 * US dollars for `usage` at the worker's prices; undefined when the worker has no price. Prompt tokens
 * read from the provider's cache are priced at its cache rate where the price has one.
 */
export function priceOf(worker: WorkerSpec | undefined, usage: Usage | undefined): number | undefined {
  const price = worker?.price;
  if (!price || !usage) return undefined;
  const cachedRate = price.cachedInputPerM;
  const cached = cachedRate === undefined ? 0 : Math.min(usage.promptTokens, usage.cachedPromptTokens ?? 0);
  return (
    ((usage.promptTokens - cached) * price.inputPerM +
      cached * (cachedRate ?? 0) +
      usage.completionTokens * price.outputPerM) /
    1e6
  );
}

/**
 * Whether a request that ended without usage may still have been billed. A provider bills the prompt
 * once it has started on it: an answer began, or we stopped waiting (cancel, timeout) or the stream broke
 * with the request out. An error response before any answer (4xx, 5xx), a refusal by egress and a
 * connection that never opened are not billed.
 */
function mayHaveBeenBilled(error: unknown, answer: string): boolean {
  if (answer.length > 0 || error === undefined) return true;
  if (!(error instanceof ProviderError)) return true; // our own stop (cancel, step timeout): it was out
  if (error.status !== undefined) return false;
  return error.kind === 'timeout' || error.kind === 'stream' || error.kind === 'aborted';
}

/** Whether `requestSpend` will estimate this request's tokens: no usage came, and it may have been billed. */
export function needsEstimate(usage: Usage | undefined, error: unknown, answer: string): boolean {
  return !usage && mayHaveBeenBilled(error, answer);
}

/** What one finished request used: the provider's usage when it sent one, else an estimate (or none). */
export function requestSpend(input: {
  attempt: number;
  outcome: Exclude<RequestOutcome, 'in-flight'>;
  worker: WorkerSpec;
  messages: readonly PartsMessage[];
  answer: string;
  usage: Usage | undefined;
  /** The reasoning the model streamed with the answer: billed as output, so counted as completion tokens. */
  reasoning?: string;
  /** US dollars the provider reported for this request (with its usage): wins over the price table. */
  reportedCost?: number;
  error?: unknown;
}): RequestSpend {
  const reasoning = input.reasoning ?? '';
  let usage: Usage;
  if (input.usage) {
    usage = { promptTokens: input.usage.promptTokens, completionTokens: input.usage.completionTokens };
    if (input.usage.reasoningTokens !== undefined) usage.reasoningTokens = input.usage.reasoningTokens;
    if (input.usage.cachedPromptTokens !== undefined)
      usage.cachedPromptTokens = input.usage.cachedPromptTokens;
  } else if (mayHaveBeenBilled(input.error, input.answer + reasoning)) {
    usage = {
      promptTokens: promptTokensOf(input.messages, input.worker.model),
      completionTokens: estimateTokens(input.answer) + estimateTokens(reasoning),
      estimated: true,
      estimator: currentEstimator(),
    };
    if (reasoning) usage.reasoningTokens = estimateTokens(reasoning);
  } else usage = { promptTokens: 0, completionTokens: 0 };
  const spend: RequestSpend = { attempt: input.attempt, outcome: input.outcome, ...usage };
  if (input.usage && input.reportedCost !== undefined) {
    spend.cost = input.reportedCost;
    spend.costReported = true;
    return spend;
  }
  const cost = priceOf(input.worker, usage);
  if (cost !== undefined) spend.cost = cost;
  return spend;
}

/** A request as it leaves: its prompt is estimated, so live totals (and a spend cap) count it at once. */
export function inFlightSpend(
  attempt: number,
  worker: WorkerSpec,
  messages: readonly PartsMessage[],
): RequestSpend {
  const usage: Usage = {
    // Attached files count: their text by the estimator, each image by the worker's model's image rule.
    promptTokens: promptTokensOf(messages, worker.model),
    completionTokens: 0,
    estimated: true,
    estimator: currentEstimator(),
  };
  const spend: RequestSpend = { attempt, outcome: 'in-flight', ...usage };
  const cost = priceOf(worker, usage);
  if (cost !== undefined) spend.cost = cost;
  return spend;
}

/**
 * The in-flight request `spend` with the output streamed so far (`answerTokens`, of which
 * `reasoningTokens` the reasoning's), estimated and priced as output: what the request has cost up to now.
 */
export function streamingSpend(
  spend: RequestSpend,
  worker: WorkerSpec,
  answerTokens: number,
  reasoningTokens: number,
): RequestSpend {
  const usage: Usage = {
    promptTokens: spend.promptTokens,
    completionTokens: answerTokens + reasoningTokens,
    estimated: true,
    ...(spend.estimator ? { estimator: spend.estimator } : {}),
  };
  if (reasoningTokens > 0) usage.reasoningTokens = reasoningTokens;
  const next: RequestSpend = { attempt: spend.attempt, outcome: 'in-flight', ...usage };
  const cost = priceOf(worker, usage);
  if (cost !== undefined) next.cost = cost;
  return next;
}

/**
 * A request found in flight when a stored run is resumed: the page stopped while it was out, so it is
 * counted as billed, its output estimated from the partial answer and reasoning that were saved.
 */
export function interruptedSpend(
  spend: RequestSpend,
  partialAnswer: string,
  worker: WorkerSpec | undefined,
  partialReasoning = '',
): RequestSpend {
  const reasoningTokens = estimateTokens(partialReasoning);
  const usage: Usage = {
    promptTokens: spend.promptTokens,
    completionTokens: Math.max(spend.completionTokens, estimateTokens(partialAnswer) + reasoningTokens),
    estimated: true,
    // The prompt was counted when it left, by whichever estimator it was then: the rougher one is named.
    estimator: spend.estimator === 'o200k' && currentEstimator() === 'o200k' ? 'o200k' : 'chars',
  };
  if (reasoningTokens > 0) usage.reasoningTokens = reasoningTokens;
  const next: RequestSpend = { attempt: spend.attempt, outcome: 'interrupted', ...usage };
  const cost = priceOf(worker, usage) ?? spend.cost;
  if (cost !== undefined) next.cost = cost;
  return next;
}

/**
 * Tokens, cost, requests and step counts over a run's steps (live while it runs, final when it has
 * ended). A step's spend is the sum over its requests; a step stored before requests were kept counts
 * its last usage.
 */
export function totalsOf(steps: readonly StepStatus[]): RunTotals {
  const totals: RunTotals = {
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    requests: 0,
    steps: steps.length,
    done: 0,
    failed: 0,
    cancelled: 0,
  };
  let estimated = false;
  let reasoningTokens = 0;
  let estimator: Estimator = 'o200k';
  const note = (usage: Usage | undefined) => {
    if (!usage?.estimated) return;
    estimated = true;
    if (usage.estimator !== 'o200k') estimator = 'chars';
  };
  for (const step of steps) {
    if (step.requests) {
      for (const request of step.requests) {
        totals.promptTokens += request.promptTokens;
        totals.completionTokens += request.completionTokens;
        reasoningTokens += request.reasoningTokens ?? 0;
        totals.cost += request.cost ?? 0;
        if (request.cost === undefined && request.promptTokens + request.completionTokens > 0)
          totals.unpriced = (totals.unpriced ?? 0) + 1;
        totals.requests = (totals.requests ?? 0) + 1;
        note(request);
      }
    } else {
      totals.promptTokens += step.usage?.promptTokens ?? 0;
      totals.completionTokens += step.usage?.completionTokens ?? 0;
      totals.cost += step.cost ?? 0;
      note(step.usage);
    }
    if (step.state === 'done') totals.done++;
    if (step.state === 'failed') totals.failed++;
    if (step.state === 'cancelled') totals.cancelled++;
  }
  if (estimated) {
    totals.estimated = true;
    totals.estimator = estimator;
  }
  if (reasoningTokens > 0) totals.reasoningTokens = reasoningTokens;
  return totals;
}

/** What a thread's instructions add to one step's input: their tokens (estimated), priced as input. */
export function instructionsSpend(
  worker: WorkerSpec,
  instructions: string,
): { tokens: number; cost?: number } {
  const tokens = estimateTokens(instructions);
  const cost =
    worker.id === LOCAL_WORKER ? 0 : priceOf(worker, { promptTokens: tokens, completionTokens: 0 });
  return cost === undefined ? { tokens } : { tokens, cost };
}
