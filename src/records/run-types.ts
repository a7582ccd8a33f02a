/**
 * The shapes of a run as it is stored and shown: each step's status, its requests and their spend, the run's
 * totals. The executor writes them, the records keep them, the views read them.
 */
import type { ToolCallNote } from '../providers/tool-use.ts';
import type { Citation } from '../providers/transport.ts';
import type { Step } from '../shared/plan/index.ts';
import type { Estimator } from '../shared/token-estimate.ts';

export type StepState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/**
 * - `done`: every step is done.
 * - `partial`: the final answer exists, but some other step failed or was cancelled.
 * - `failed`: there is no final answer (the final step failed, or the plan could not be read).
 * - `cancelled`: the whole run was cancelled.
 */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled' | 'partial';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Set when the provider sent no usage and the tokens were estimated (see `estimator`). */
  estimated?: true;
  /** Of `completionTokens`, how many were reasoning (the provider's count, or an estimate of its text). */
  reasoningTokens?: number;
  /** Of `promptTokens`, how many the provider read from its cache (when it says). */
  cachedPromptTokens?: number;
  /** Which estimator counted them, when `estimated`; absent in older records (characters / 4). */
  estimator?: Estimator;
}

/**
 * How one request ended: `in-flight` until it does; `interrupted` when it was in flight as the page
 * stopped (found so on resume: it may have been paid for, and its answer is lost).
 */
export type RequestOutcome = 'in-flight' | 'answered' | 'failed' | 'cancelled' | 'interrupted';

/** What one request (one attempt of a step) used and cost: every request counts, answered or not. */
export interface RequestSpend extends Usage {
  /** The attempt number within the step's run it belonged to (a rerun or resume starts again at 1). */
  attempt: number;
  outcome: RequestOutcome;
  /** US dollars: the provider's own report when it sent one (`costReported`), else the worker's price table. */
  cost?: number;
  /** `cost` is what the provider reported for this request (OpenRouter `usage.cost`), not our estimate. */
  costReported?: true;
}

/**
 * What a step that is not done is waiting for, so the page can say why it takes long:
 * - `slot`: every request slot of its endpoint is in use;
 * - `first-token`: the request is out and no answer has begun; the attempt gives up at `deadline`;
 * - `retry`: the last attempt failed with `reason`; the next one starts at `until`.
 * Times are epoch milliseconds; `maxAttempts` is the retry policy's.
 */
export type StepWait =
  | { kind: 'slot'; endpoint: string; limit: number }
  | { kind: 'first-token'; since: number; deadline: number; attempt: number; maxAttempts: number }
  | { kind: 'retry'; until: number; reason: string; attempt: number; maxAttempts: number };

/** Milliseconds since the epoch (`Date.now()`). */
export interface StepTimings {
  queuedAt?: number;
  startedAt?: number;
  firstTokenAt?: number;
  endedAt?: number;
}

/**
 * One worker giving a step over to another after it stayed unavailable (src/executor/failover.ts): ids as
 * in the pool, `reason` the error that ended the failed worker's attempts.
 */
export interface Takeover {
  from: string;
  to: string;
  reason: string;
  /** Epoch milliseconds. */
  at: number;
}

/** The live (and persisted) state of one step. */
export interface StepStatus {
  index: number;
  /** The worker answering the step: the plan's, or the last one that took it over (see `takeovers`). */
  worker: string;
  task: string;
  /** `sees` as written ("all" is kept; `dependencies` has it resolved). */
  sees: Step['sees'];
  /** The attached files the step gets, as the plan wrote them (absent: none). */
  files?: Step['files'];
  /** 0 for the first plan's steps, d for steps added by a `self` step of depth d - 1. */
  depth: number;
  state: StepState;
  /** The answer so far while running, the whole answer when done. */
  text: string;
  /**
   * The model's reasoning (DeepSeek `reasoning_content`, OpenRouter `reasoning`, ...) for the answer in
   * `text`: shown apart, never part of the answer, never sent to later steps.
   */
  reasoning?: string;
  /**
   * The web pages a searching worker cited for the answer in `text`, each URL once, in the order they came
   * (src/providers/web-search.ts): shown as links under the answer, never fetched, never sent to later steps.
   */
  citations?: Citation[];
  /** The tool calls the answer's model asked for and how each went (never their results). */
  toolCalls?: ToolCallNote[];
  /** The answering request's usage (the last attempt's); what the step cost in all is in `requests`. */
  usage?: Usage;
  /** US dollars, from the worker's price table; undefined when the worker has no price. */
  cost?: number;
  /**
   * Every request this step has sent, over every attempt, resume and rerun (kept across all three), so
   * totals count what was paid and not only the answer that stayed. Absent in records from before it.
   */
  requests?: RequestSpend[];
  /** Set while the step waits on something that can take long (see StepWait). */
  wait?: StepWait;
  /**
   * Set on resume when this step had paid requests whose answer was not saved: running it again pays
   * again, and the user is told so.
   */
  notice?: string;
  /**
   * Each time the step's worker stayed unavailable and another took the step over, in order; the first
   * `from` is the plan's worker. Absent when none did (and in records from before failover).
   */
  takeovers?: Takeover[];
  /** The user pinned the step to its worker: it never fails over (the plan step's `pin`). */
  pin?: true;
  /**
   * The provider stopped the answer at its output limit (OpenAI's `finish_reason: "length"`, Anthropic's
   * `stop_reason: "max_tokens"`, src/providers/finish-reason.ts): the answer is cut, and can be continued.
   */
  cutAtLimit?: true;
  /**
   * Set while the step is being continued (src/executor/continuation.ts): the length of the answer it goes
   * on from, which its `text` starts with.
   */
  continuing?: number;
  /** In a thread's follow-up: what the step's worker was sent of the earlier turns, and what was cut. */
  history?: StepHistory;
  /**
   * In a thread with standing instructions: the tokens of them the step was sent (estimated) and what they
   * cost at its worker's input price (absent: no price).
   */
  instructions?: { tokens: number; cost?: number };
  /** What the step's request carried of each attached file: all of it, or which passages (absent: none). */
  sent?: SentFile[];
  timings: StepTimings;
  attempts: number;
  error?: string;
}

/**
 * A follow-up step's share of its thread (src/executor/turn-history.ts): `kept` earlier turns went to the
 * worker as chat history, `cut` did not fit its budget, and `shortened` says the newest kept answer was cut
 * in the middle to fit.
 */
export interface StepHistory {
  kept: number;
  cut: number;
  shortened?: true;
  /** The worker's history budget, in tokens. */
  budgetTokens: number;
  /** Tokens the history took (estimated, as `estimateTokens` counts). */
  tokens: number;
  /** Which turns went and why, in the thread's order (absent in records from before turns were chosen by relevance). */
  turns?: SentTurn[];
}

/** One earlier turn a step was sent, and why: the newest, one matching the question, or a recent one. */
export interface SentTurn {
  /** The turn's number in its thread, from 0 (shown from 1). */
  turn: number;
  why: 'newest' | 'matched' | 'recent';
  /** With `matched`: the question's terms the turn matched (the user's own words). */
  terms?: string[];
}

export interface RunTotals {
  /** Over every request of the run (see StepStatus.requests), estimated ones included. */
  promptTokens: number;
  completionTokens: number;
  /** US dollars over the requests whose worker has a price (or whose provider reported one). */
  cost: number;
  /**
   * Requests that used tokens on a worker with no price: what they cost is unknown and not in `cost`, so
   * the cost is shown as unknown (or "+ unknown"), never as a $0 nobody knows. Absent when none.
   */
  unpriced?: number;
  /** Of `completionTokens`, the reasoning tokens (set when any request had some). */
  reasoningTokens?: number;
  /** Requests sent for the run, failed, cancelled and rerun ones included (absent in older records). */
  requests?: number;
  /** Set when some of the tokens (and so the cost) are estimates: a provider sent no usage. */
  estimated?: true;
  /** With `estimated`: 'o200k' when the o200k tokenizer counted every estimate, else 'chars'. */
  estimator?: Estimator;
  steps: number;
  done: number;
  failed: number;
  cancelled: number;
}

/**
 * One attached file as a step sent it (src/executor/step-files.ts): whole, or the passages chosen on the
 * device, each by its place, with the bytes of the file's text that left in the request.
 */
export interface SentFile {
  /** The attachment's content hash. */
  id: string;
  /** Its name (the user's file's text: shown inert). */
  name: string;
  /** Bytes of the file's text (or an image's base64) in the request. */
  bytes: number;
  /** Sent as passages: each by its number in the file, its place and its size in characters. */
  passages?: { n: number; place: string; chars: number }[];
  /** How many passages the file has. */
  total?: number;
  /** The search matched weakly: the passages may not hold what the step needs. */
  weak?: true;
}
