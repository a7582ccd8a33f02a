import type { PassageLibrary } from '../attachments/passage-store.ts';
import type { Attachment } from '../attachments/types.ts';
import type { ToolUse } from '../providers/tool-use.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { RunStore } from '../records/run-store.ts';
import type { ChosenBy, StoredPlanNote, ThreadLink } from '../records/runs-db.ts';
import type { Step } from '../shared/plan/index.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { FailoverOptions } from './failover.ts';
import type { RetryPolicy } from './retry.ts';
import type { TurnHistory } from './turn-history.ts';
import type { ExecutorEvent, Replanner } from './types.ts';

export const DEFAULT_FIRST_TOKEN_TIMEOUT_MS = 60_000;
export const DEFAULT_STEP_TIMEOUT_MS = 300_000;

export interface ExecutorOptions {
  /** The workers steps may name (`self` is the conductor and needs no entry). */
  pool: readonly WorkerSpec[];
  /** One transport for every worker, or one chosen per worker (for example the on-device `local` one). */
  transport: ChatTransport | ((worker: WorkerSpec) => ChatTransport);
  /** Called by `self` steps. Without one, a `self` step accepts the current answer. */
  conductor?: Replanner;
  /** Where every step change is written. Without one, nothing is persisted. */
  store?: RunStore;
  onEvent?: (event: ExecutorEvent) => void;
  /** Send the question as the first user turn of every step (default true). */
  includeQuestion?: boolean;
  /**
   * Per attempt: no first token within this time aborts the attempt, which counts as a retryable
   * `timeout` (default 60 s).
   */
  firstTokenTimeoutMs?: number;
  /**
   * Per step, from its start to its end over every attempt and backoff wait: when it fires the step
   * fails at once, without another attempt (default 300 s). A worker that takes the step over gets a
   * limit of its own.
   */
  stepTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * The most characters (answer and reasoning) a step keeps of one answer: past it the answer is cut, the
   * request stopped, and the step says so (default MAX_ANSWER_CHARS, 8 million).
   */
  maxAnswerChars?: number;
  /** Levels of `self` recursion (default 2). */
  maxDepth?: number;
  /** Steps per plan, the first plan and each corrective one (default 5). */
  maxSteps?: number;
  /** Steps per run, corrective ones included (default maxSteps × (maxDepth + 1)). */
  maxTotalSteps?: number;
  /**
   * Requests in flight per provider per endpoint (a base URL's origin; so per key too, a key being bound
   * to one provider at one origin), keyed by that origin or by provider id (then for each of its
   * endpoints). Default: the smallest `maxConcurrency` among the provider's workers at that endpoint. Each must be a whole number ≥ 1, else
   * `startRun` throws a RangeError naming it.
   */
  providerConcurrency?: Record<string, number>;
  /**
   * US dollars the run may spend (every request, the answer streaming so far included: `liveSpend`). Past
   * it the run stops: steps done keep their answers, the others are cancelled, and the run's error names
   * the limit and the spend. A resumed run counts from what it had spent before the resume.
   */
  spendLimitUsd?: number;
  /** Run one step at a time in index order, as the Conductor paper did (for comparison). */
  sequential?: boolean;
  /**
   * Failover: a step whose worker stays unavailable after its retries runs again, from its start, on the
   * best other worker of the pool (src/executor/failover.ts says which failures and which worker). Off
   * without it: the step fails, as it always did. A pinned step (`pin`) never fails over.
   */
  failover?: FailoverOptions;
  /**
   * In a thread's follow-up: the earlier turns, sent to every step's worker as chat history within that
   * worker's budget (src/executor/turn-history.ts). Absent: a thread's first turn, or a run of its own.
   */
  history?: TurnHistory;
  /** Files' passages and their indexes (the page's library, kept by content hash; default: in memory). */
  passages?: PassageLibrary;
  /** Past this many tokens (about), a file the plan sent as `"all"` goes as passages (default 8,000). */
  wholeFileTokens?: number | null;
  /** The thread's standing instructions: sent to every worker step with its system prompt (context.ts). */
  instructions?: string;
  /**
   * The question's attached files, by index: a step is sent only those its `files` names
   * (src/executor/step-files.ts), and a plan that gives an image to a worker that takes none is refused
   * before anything is sent.
   */
  attachments?: readonly Attachment[];
  /**
   * The tools a step's plan granted it, for its worker (src/tools/): absent or undefined, the step's
   * requests offer no tools. Called once per attempt's worker, so a step taken over is given them afresh.
   */
  toolsFor?: (step: Step, index: number, worker: WorkerSpec, runId: string) => ToolUse | undefined;
  now?: () => number;
}

/** What one run is started with, past the options every run shares: its question and what it is stored with. */
export interface RunSettings extends ExecutorOptions {
  runId: string;
  question: string;
  /** Stored with the run ('conductor', 'router', ...). */
  mode: string;
  /** Auto mode's choice, stored with the run. */
  chosenBy?: ChosenBy;
  /** The conductor's note on its plan, read at each write of the run (see RunOptions.planNote). */
  planNote?: () => StoredPlanNote | undefined;
  /** The run's thread and turn, stored with it. Absent: the run is a thread of its own (one turn). */
  thread?: ThreadLink;
}
