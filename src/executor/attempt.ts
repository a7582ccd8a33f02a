import { ProviderError } from '../providers/errors.ts';
import { askingOffClock, type ToolUse, type UserWait } from '../providers/tool-use.ts';
import type { ChatEvent, ChatTransport } from '../providers/transport.ts';
import { withCitation } from '../providers/web-search.ts';
import type { RequestSpend, StepStatus, StepWait } from '../records/run-types.ts';
import type { PartsMessage } from '../shared/chat.ts';
import { loadTokenizer, TokenTally } from '../shared/token-estimate.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { closeQuietly, nextOrAbort, StopSignal } from './abort.ts';
import { decideRetry, type RetryPolicy } from './retry.ts';
import { inFlightSpend, needsEstimate, requestSpend, streamingSpend } from './spend.ts';
import { startStepClock } from './step-clock.ts';
import { streamBatches } from './stream-batches.ts';
import type { StepEventBody } from './types.ts';

type Messages = PartsMessage[];

/**
 * The most text (answer and reasoning together, in characters) a step keeps of one answer: past it the
 * answer is cut there, the rest is not read (the request is stopped), and the step says so. 8 million
 * characters is about 2 million tokens, sixteen times the longest answer a catalog model may send
 * (128 K output tokens, about half a million characters): only a broken or hostile endpoint sends more,
 * and every later step would carry it as context.
 */
export const MAX_ANSWER_CHARS = 8_000_000;

/** What the step says when its answer was cut at `limit` characters. */
export function answerCutNotice(limit: number): string {
  return (
    `The answer passed ${limit.toLocaleString('en-US')} characters, the most Baton keeps of one answer: ` +
    'it was cut there and the rest was not read. Later steps see the answer as cut.'
  );
}

/** What the attempts of one step need from the run that holds it. */
export interface AttemptHost {
  readonly runId: string;
  readonly now: () => number;
  readonly policy: RetryPolicy;
  /** Tells listeners about a change to the step; the event is sent with the step's snapshot. */
  emitStep(status: StepStatus, event: StepEventBody): void;
  setWait(status: StepStatus, wait: StepWait | undefined): void;
  writeStep(status: StepStatus): void;
  writePartial(status: StepStatus): void;
}

export interface WorkerStep {
  /** The step's live status: the attempts write its answer, usage, spend, timings and waits into it. */
  status: StepStatus;
  worker: WorkerSpec;
  transport: ChatTransport;
  messages: Messages;
  /** Aborted with a StopSignal when the step or the run is stopped. */
  signal: AbortSignal;
  firstTokenTimeoutMs: number;
  stepTimeoutMs: number;
  /** Settles once the answers the step reads are stored: no request of it leaves before. */
  ready?: Promise<void>;
  /**
   * Whether another worker would take the step over from this one now, failing with `error`. Asked when
   * an attempt stalled (no answer began within the first-token timeout): then the step is not asked of
   * this worker again but handed over (see `StalledError`). Without it, a stall is retried here.
   */
  takenOverOnStall?: (error: ProviderError) => Promise<boolean>;
  /** The most characters of one answer the step keeps (default MAX_ANSWER_CHARS). */
  maxAnswerChars?: number;
  /** The step's answer is the run's final answer (ChatRequest.final). */
  final?: boolean;
  /** The tools the step was granted (ChatRequest.tools). */
  tools?: ToolUse;
  /** A cut answer being continued (continuation.ts): each attempt's text is appended to it. */
  prefix?: string;
}

/**
 * No answer began within the first-token timeout. Retried on the same worker only when no other worker
 * can take the step: a provider that left one request without a word for a minute is overloaded or
 * stuck, and its next attempt mostly stalls the same way, so three attempts cost three minutes before
 * another worker was asked. Handed over at once, the step waits one timeout (60 s) and the substitute's
 * first token. A quick error (503, a dropped connection) is still retried here first: its retries cost
 * seconds, and they often succeed.
 */
export class StalledError extends ProviderError {
  override name = 'StalledError';
  constructor(timeoutMs: number) {
    super('timeout', `No answer began within ${timeoutMs / 1000} s.`);
  }
}

/**
 * Asks the worker until it answers, retrying what the policy retries, within the step's time limit.
 * Resolves when an answer is in `status` (with its usage and cost); throws the error that ended the step:
 * a StopSignal when it was stopped (a step timeout is `step-timeout`), else an Error saying why it failed.
 */
export async function answerStep(host: AttemptHost, step: WorkerStep): Promise<void> {
  const { status, worker, messages, signal, firstTokenTimeoutMs } = step;
  // The step timeout aborts through a controller of its own so that "why" stays with the step.
  const stepController = new AbortController();
  const forward = () => stepController.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  // The time the user takes to answer a tool call's question is not the step's (step-clock.ts).
  const clock = startStepClock(step.stepTimeoutMs, () =>
    stepController.abort(new StopSignal('step-timeout')),
  );
  try {
    for (let attempt = 1; ; attempt++) {
      status.state = 'running';
      status.attempts = attempt;
      status.text = step.prefix ?? '';
      delete status.cutAtLimit;
      status.reasoning = undefined;
      status.citations = undefined;
      status.toolCalls = undefined;
      status.usage = undefined;
      status.error = undefined;
      status.timings.startedAt ??= host.now();
      status.timings.firstTokenAt = undefined;
      const since = host.now();
      status.wait = {
        kind: 'first-token',
        since,
        deadline: since + firstTokenTimeoutMs,
        attempt,
        maxAttempts: host.policy.maxAttempts,
      };
      // Counted from the moment it leaves, so live totals (and the bench's cap) see it at once; the
      // step is written with it, so a reload knows a request was out.
      const requestIndex = addRequest(host, status, inFlightSpend(attempt, worker, messages));
      host.emitStep(status, { type: 'step-started', attempt });
      host.emitStep(status, { type: 'step-waiting', wait: status.wait });
      host.writeStep(status);
      let error: unknown;
      const reported: ReportedCost = {};
      const live: LiveRequest = {
        index: requestIndex,
        answer: new TokenTally(),
        reasoning: new TokenTally(),
      };
      try {
        await streamAttempt(host, step, stepController.signal, reported, live, clock.offClock);
      } catch (e) {
        error = e;
      }
      const stopped = error !== undefined && stepController.signal.aborted;
      // A step timeout stops the request too, but as a failure, not a cancel.
      const timedOut = stopped && (stepController.signal.reason as StopSignal).why === 'step-timeout';
      // No usage from the provider: its tokens are counted by the tokenizer, loaded on this first need.
      if (needsEstimate(status.usage, error, status.text)) await loadTokenizer();
      settleRequest(
        host,
        status,
        requestIndex,
        requestSpend({
          attempt,
          outcome: error === undefined ? 'answered' : stopped && !timedOut ? 'cancelled' : 'failed',
          worker,
          messages,
          // This request's answer: a continuation's text after the answer it went on from.
          answer: status.text.slice(step.prefix?.length ?? 0),
          usage: status.usage,
          ...(status.reasoning ? { reasoning: status.reasoning } : {}),
          ...(reported.cost !== undefined ? { reportedCost: reported.cost } : {}),
          error,
        }),
      );
      if (error === undefined) {
        const answered = status.requests?.[requestIndex] as RequestSpend;
        if (!status.usage) {
          status.usage = {
            promptTokens: answered.promptTokens,
            completionTokens: answered.completionTokens,
            estimated: true,
            ...(answered.estimator ? { estimator: answered.estimator } : {}),
          };
          if (answered.reasoningTokens !== undefined) status.usage.reasoningTokens = answered.reasoningTokens;
        }
        if (answered.cost !== undefined) status.cost = answered.cost;
        else delete status.cost;
        delete status.continuing;
        return;
      }
      if (stopped) throw stepController.signal.reason;
      const decision = decideRetry(error, attempt, host.policy);
      // The provider's error stays as the cause: failover tells an outage from a bad request by it.
      if (!decision.retry) throw new Error(decision.reason, { cause: error });
      if (error instanceof StalledError && (await step.takenOverOnStall?.(error))) {
        throw new Error(error.message, { cause: error });
      }
      status.error = decision.reason;
      host.setWait(status, {
        kind: 'retry',
        until: host.now() + decision.delayMs,
        reason: decision.reason,
        attempt,
        maxAttempts: host.policy.maxAttempts,
      });
      host.emitStep(status, {
        type: 'step-retrying',
        attempt: attempt + 1,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      host.writeStep(status);
      try {
        await host.policy.sleep(decision.delayMs, stepController.signal);
      } catch (e) {
        if (stepController.signal.aborted) throw stepController.signal.reason;
        throw e;
      }
    }
  } catch (error) {
    // A continuation that failed leaves the answer as it was before it, not with a broken-off piece.
    if (step.prefix !== undefined) status.text = step.prefix;
    throw error;
  } finally {
    clock.stop();
    signal.removeEventListener('abort', forward);
  }
}

/** Adds a request to the step's spend and says so; returns its index in `requests`. */
function addRequest(host: AttemptHost, status: StepStatus, request: RequestSpend): number {
  status.requests = [...(status.requests ?? []), request];
  const requestIndex = status.requests.length - 1;
  host.emitStep(status, { type: 'step-request', request, requestIndex });
  return requestIndex;
}

/** Replaces an in-flight request with what it used in the end. */
function settleRequest(
  host: AttemptHost,
  status: StepStatus,
  requestIndex: number,
  request: RequestSpend,
): void {
  const requests = [...(status.requests ?? [])];
  requests[requestIndex] = request;
  status.requests = requests;
  host.emitStep(status, { type: 'step-request', request, requestIndex });
}

/** The price a provider reported for one request with its usage (OpenRouter's `usage.cost`); the last one wins. */
interface ReportedCost {
  cost?: number;
}

/**
 * The request in flight and its output so far, counted as it streams: its entry in the step's
 * `requests` carries the estimate (tokens and cost), so the step card, the run's totals and the spend
 * limit see the answer grow, each in time linear in the answer.
 */
interface LiveRequest {
  index: number;
  answer: TokenTally;
  reasoning: TokenTally;
}

/** Puts the output streamed so far into the in-flight request's entry (until its own usage comes). */
function countStreamed(status: StepStatus, worker: WorkerSpec, live: LiveRequest): void {
  const requests = status.requests;
  const request = requests?.[live.index];
  if (!requests || request?.outcome !== 'in-flight') return;
  requests[live.index] = streamingSpend(request, worker, live.answer.tokens, live.reasoning.tokens);
}

/** The part of `piece` that fits under `limit` after `kept` characters, and whether it is all of it. */
function fitting(piece: string, kept: number, limit: number): { text: string; cut: boolean } {
  const room = limit - kept;
  return piece.length <= room
    ? { text: piece, cut: false }
    : { text: piece.slice(0, Math.max(0, room)), cut: true };
}

/** One request. Throws a ProviderError (a first-token timeout is kind `timeout`) or a StopSignal. */
async function streamAttempt(
  host: AttemptHost,
  step: WorkerStep,
  stepSignal: AbortSignal,
  reported: ReportedCost,
  live: LiveRequest,
  offStepClock: UserWait,
): Promise<void> {
  const { status, worker, transport, messages, firstTokenTimeoutMs } = step;
  const limit = step.maxAnswerChars ?? MAX_ANSWER_CHARS;
  const controller = new AbortController();
  const forward = () => controller.abort(stepSignal.reason);
  if (stepSignal.aborted) throw stepSignal.reason;
  stepSignal.addEventListener('abort', forward, { once: true });
  const firstTokenTimeout = new StalledError(firstTokenTimeoutMs);
  // Stands still, as the step's clock does, while the user is asked something (step-clock.ts).
  const firstToken = startStepClock(firstTokenTimeoutMs, () => controller.abort(firstTokenTimeout));
  let waitingFirst = true;
  const userWait: UserWait = (asking) => offStepClock(() => firstToken.offClock(asking));
  const request = {
    messages,
    signal: controller.signal,
    runId: host.runId,
    stepIndex: status.index,
    userWait,
    ...(step.final ? { final: true } : {}),
    ...(step.tools ? { tools: askingOffClock(step.tools, userWait) } : {}),
  };
  // Taken a window at a time: the step's work per piece (its snapshot, spend, view, persistence) follows
  // the window, not each token.
  const iterator = streamBatches(
    transport
      .stream(worker, step.ready ? { ...request, ready: step.ready } : request)
      [Symbol.asyncIterator](),
  );
  try {
    for (;;) {
      let next: IteratorResult<ChatEvent>;
      try {
        next = await nextOrAbort(iterator, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) {
          closeQuietly(iterator);
          throw controller.signal.reason;
        }
        throw error instanceof ProviderError
          ? error
          : new ProviderError('stream', error instanceof Error ? error.message : String(error));
      }
      if (next.done) break;
      const event = next.value;
      // Any token is the stream being alive, reasoning included: a model may think for minutes first. A
      // tool call too: the model answered, and the user may be asked before it is made.
      if (
        (event.type === 'delta' || event.type === 'reasoning' || event.type === 'tool-call') &&
        waitingFirst
      ) {
        firstToken.stop();
        waitingFirst = false;
        status.timings.firstTokenAt = host.now();
        host.setWait(status, undefined);
      }
      if (event.type === 'delta' || event.type === 'reasoning') {
        const kept = status.text.length + (status.reasoning?.length ?? 0);
        const { text, cut } = fitting(event.text, kept, limit);
        if (event.type === 'delta') {
          status.text += text;
          live.answer.add(text);
          countStreamed(status, worker, live);
          host.emitStep(status, { type: 'step-delta', text, answer: status.text });
        } else {
          status.reasoning = (status.reasoning ?? '') + text;
          live.reasoning.add(text);
          countStreamed(status, worker, live);
          host.emitStep(status, { type: 'step-reasoning', text, reasoning: status.reasoning });
        }
        host.writePartial(status);
        if (cut) {
          closeQuietly(iterator);
          if (!status.text.trim()) {
            throw new ProviderError(
              'empty',
              `The model sent more than ${limit.toLocaleString('en-US')} characters of reasoning and no answer: Baton stopped reading.`,
            );
          }
          status.notice = answerCutNotice(limit);
          host.emitStep(status, { type: 'step-notice', notice: status.notice });
          return;
        }
      } else if (event.type === 'tool-used') {
        // Kept on the step as the citations are: carried by its next event and write.
        status.toolCalls = [...(status.toolCalls ?? []), { tool: event.tool, outcome: event.outcome }];
      } else if (event.type === 'citation') {
        // Kept on the step, carried by its next event and write (the answer's end at the latest).
        const { type: _type, ...citation } = event;
        status.citations = withCitation(status.citations, citation);
      } else if (event.type === 'finish') {
        // The provider's output limit cut the answer: the page offers to continue it.
        if (event.cut) status.cutAtLimit = true;
      } else if (event.type === 'usage') {
        // Replaced, never added: Gemini sends a running total on every chunk.
        status.usage = { promptTokens: event.promptTokens, completionTokens: event.completionTokens };
        if (event.reasoningTokens !== undefined) status.usage.reasoningTokens = event.reasoningTokens;
        if (event.cachedPromptTokens !== undefined)
          status.usage.cachedPromptTokens = event.cachedPromptTokens;
        reported.cost = event.cost;
      }
    }
  } finally {
    firstToken.stop();
    stepSignal.removeEventListener('abort', forward);
  }
}
