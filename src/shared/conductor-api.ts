import type { ChatMessage } from './chat.ts';
import type { LoadProgress, ModelRef } from './model.ts';
import type { Plan, PlanMode, Step } from './plan/index.ts';

/**
 * Requests and results of the conductor thread, shared by the thread and the page. Types only: the page
 * imports the thread's API type with `import type`, never its code.
 */

export type { LoadProgress, ModelRef };

/** What the conductor is told about one worker of the pool. */
export interface PoolEntry {
  id: string;
  label: string;
  /** One line the user can edit. */
  strengths: string;
  costTier?: 'low' | 'medium' | 'high';
  /** The worker searches the web (the conductor sends it questions about recent events). */
  webSearch?: true;
  /** The worker takes image input: only it may be given an attached image. */
  vision?: true;
  /** The worker's model calls tools: only it may be granted the tools offered (`PlanRequest.tools`). */
  tools?: true;
}

/** A tool the user offered the conductor (src/tools/), as the planner is told of it. */
export interface OfferedTool {
  /** As a plan names it: `server.tool`. */
  name: string;
  /** The server's description of it (untrusted text: fenced in the prompt). */
  description: string;
  /** Its annotations say it changes nothing (`readOnlyHint`): calls to it are not confirmed. */
  readOnly: boolean;
}

/**
 * What the conductor is told about one attached file, never the file itself: its name, kind and size, and
 * for a file with text a short extract within a token budget (made on the page), so it can tell which
 * steps need the file.
 */
export interface AttachmentSummary {
  /** The file's name (untrusted text, like the question). */
  name: string;
  kind: 'text' | 'code' | 'markdown' | 'csv' | 'json' | 'pdf' | 'image';
  /** Bytes of the file as attached. */
  size: number;
  /** A PDF's pages. */
  pages?: number;
  /** An image's pixel size as sent. */
  width?: number;
  height?: number;
  /** The start of its text (a text file or a PDF's text layer), within a small token budget. */
  extract?: string;
  /** Past the size a file is sent whole at (src/attachments/whole-or-passages.ts): passages suit it. */
  long?: true;
}

/**
 * Knobs common to every generation. What crosses to the thread always names its model (the bridge fills in
 * the loaded one), so a restarted thread reloads it.
 */
export interface GenerationOptions {
  /** Unique per call; `cancel(requestId)` stops it. Default: a new id. */
  requestId?: string;
  /** Default: the loaded model. */
  model?: ModelRef;
  /**
   * The engine the user allowed next: when `model` cannot take the request (the question does not fit it,
   * or its language; its session went away), the call moves there, says why with a `restart` event, and
   * reports it in `handedOver`. The bridge fills it in from the page's state.
   */
  fallback?: ModelRef;
  /**
   * Stops the call (a soft stop). A signal cannot cross to the thread: the bridge keeps it on the page and
   * turns its abort into `cancel(requestId)`.
   */
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
}

export interface PlanRequest extends GenerationOptions {
  question: string;
  pool: PoolEntry[];
  mode: PlanMode;
  /** Most steps (default 5; always 1 in `router` mode). */
  maxSteps?: number;
  /** Most levels of `self` recursion (default 2). A first plan may use `self` when this is above 0. */
  maxDepth?: number;
  /** `maxLength` of each task in the constrained output (default from the plan language). */
  maxTaskLength?: number;
  /** `maxLength` of `thought` in the constrained output. */
  maxThoughtLength?: number;
  /**
   * Whether the executor will send every worker the question (its `includeQuestion`, default true): the
   * prompt then asks for instructions rather than tasks that restate the question.
   */
  includeQuestion?: boolean;
  /**
   * Past workflows the user marked good for similar questions (workflow memory, src/learning/memory.ts),
   * on today's pool ids: extra few-shot examples after the built-in ones. Only the on-device conductor
   * sees them; they never leave the device.
   */
  examples?: PlanExample[];
  /**
   * The files attached to the question, by index (a step's `files` names them): summaries only. Each
   * step then says which files it gets, and an image only goes to a worker with `vision`.
   */
  attachments?: AttachmentSummary[];
  /**
   * A follow-up's earlier turns in its thread, oldest first: the prompt shows them in a compact form under
   * a fixed budget (workers/prompt/conversation.ts), so planning sees what was asked and answered. Every
   * worker step is sent them as chat history too (src/executor/turn-history.ts): the plan needs no step to
   * carry them. Only the on-device conductor sees this prompt.
   */
  conversation?: ConversationTurn[];
  /**
   * The thread's standing instructions. The prompt shows one short line of them, fenced as data
   * (workers/prompt/instructions.ts); every worker step is sent them whole (src/executor/context.ts).
   */
  instructions?: string;
  /** The tools offered to the conductor: a step may be granted some (`tools`). Absent: none. */
  tools?: OfferedTool[];
}

/** One earlier turn of a thread, as the planner is shown it. */
export interface ConversationTurn {
  question: string;
  /** The turn's final answer (absent when it had none). */
  answer?: string;
}

/** A past question and the plan that answered it well. */
export interface PlanExample {
  question: string;
  plan: Plan;
}

export interface ReplanRequest extends Omit<PlanRequest, 'mode'> {
  /** Every step of the workflow so far (global indices). */
  steps: Step[];
  /** `answers[i]` is step i's answer (null when it has none). */
  answers: (string | null)[];
  /** The depth the corrective steps will have (1 for a `self` step of the first plan). */
  depth: number;
}

export interface LocalChatRequest extends GenerationOptions {
  messages: ChatMessage[];
}

export interface GenerationStats {
  promptTokens: number;
  /** Of `promptTokens`, how many came from a kept prompt prefix instead of being prefilled again. */
  cachedPromptTokens?: number;
  completionTokens: number;
  prefillTokensPerSec?: number;
  decodeTokensPerSec?: number;
  /** Wall time of the whole call in the thread, model loading excluded. */
  ms: number;
}

/**
 * Streamed while a plan is written. Each `step` has passed validation against the pool and the steps
 * before it. A `restart` means the model's output was rejected and a new attempt (repair or fallback)
 * begins: the first `kept` steps streamed stand (they are the final plan's first steps), and the new
 * attempt's steps continue after them. Without `kept` (an older thread), no streamed step is known to stand.
 */
export type StepEvent =
  | { kind: 'step'; index: number; step: Step; attempt: number }
  | { kind: 'restart'; attempt: number; reason: string; kept?: number };

export interface PlanResponse {
  plan: Plan;
  stats: GenerationStats;
  /**
   * The model's output was rejected, then a repair attempt produced this plan. `issues`: each problem the
   * rejected output had, once (absent from an older thread).
   */
  repaired?: { error: string; issues?: string[] };
  /**
   * Neither the output nor the repair was valid: this plan is the steps that stood, then one step on the
   * strongest worker when there is room. `issues`: each problem of the rejected outputs, once.
   */
  fallback?: { reason: string; issues?: string[] };
  /** The model's last raw output. */
  raw: string;
  /** The loaded model could not take this plan: `to` wrote it, for `reason`. */
  handedOver?: HandOver;
}

export interface HandOver {
  to: ModelRef;
  reason: string;
}

export interface ReplanResponse {
  /** Corrective steps (global indices), or [] to accept the current last answer. */
  steps: Step[];
  thought?: string;
  stats: GenerationStats;
  repaired?: { error: string };
  /** The output could not be used: the run accepts its current answer. */
  fallback?: { reason: string };
  raw: string;
}

export interface LocalChatResponse {
  text: string;
  stats: GenerationStats;
  finishReason: 'stop' | 'length' | 'abort';
}

export interface CacheStatus {
  cached: boolean;
  bytes?: number;
}

/**
 * Failures of the conductor's life cycle (not of an engine: those are `EngineError`s from
 * engine-errors.ts). Across comlink only `name` survives, so callers switch on it.
 */
export type ConductorErrorName =
  /** `cancel()` stopped the call. */
  | 'PlanCancelled'
  /** The thread died or stopped answering; it was replaced, and the next call works again. */
  | 'ThreadCrashed'
  | 'ModelNotLoaded'
  /** The pool is empty, so there is nothing to plan for (or fall back to). */
  | 'NoWorkers';

export class ConductorError extends Error {
  override readonly name: ConductorErrorName;
  constructor(name: ConductorErrorName, message: string) {
    super(message);
    this.name = name;
  }
}

/**
 * Everything a generation streams goes through one callback, so it arrives in order (each comlink callback
 * has its own MessagePort, and two ports are not ordered with each other). `stats` is the last event of
 * every call, also of one that fails: the thread awaits the page's answer to it before it settles the call,
 * so every event arrives before the result.
 */
export type ConductorEvent =
  | { kind: 'token'; text: string }
  | StepEvent
  | { kind: 'stats'; stats: GenerationStats };

/** Receives a generation's events. Its return value is ignored, except that `stats` is awaited. */
export type ConductorListener = (event: ConductorEvent) => unknown;

/**
 * The conductor: planning, corrective steps and local chat with the on-device model. The host in the thread
 * (workers/engine-host.ts) implements it; the page's bridge (bridge.ts) implements it too, by calling the
 * host in the thread, and adds only the thread's lifecycle (ping, restart, hard stop).
 */
export interface ConductorService {
  /** Writes a plan for `request.question`, streaming tokens, each complete step and restarts. */
  plan(request: PlanRequest, onEvent?: ConductorListener): Promise<PlanResponse>;
  /** Corrective steps for a `self` step (recursion), streamed like `plan`. */
  replan(request: ReplanRequest, onEvent?: ConductorListener): Promise<ReplanResponse>;
  /** Answers with the on-device model (the `local` worker), streaming tokens. */
  chat(request: LocalChatRequest, onEvent?: ConductorListener): Promise<LocalChatResponse>;
  /** Soft stop of one call, named by its `requestId`. */
  cancel(requestId: string): unknown;
  /** Loads `model` (downloading it or reading the cache). `onProgress` is called fire-and-forget. */
  load(model: ModelRef, onProgress?: (progress: LoadProgress) => unknown): Promise<void>;
  unload(): Promise<void>;
  cacheStatus(model: ModelRef): Promise<CacheStatus>;
  deleteCache(model: ModelRef): Promise<boolean>;
  /** The model ids a local planner server on this machine lists (`GET {baseURL}/models`). */
  serverModels(baseURL: string): Promise<string[]>;
}

/**
 * Why the thread made a request: a file of the on-device model (weights, configs, tokenizer, compiled
 * library), or a call to the local planner server (workers/engines/local-server.ts).
 */
export type ConductorRequestPurpose = 'model-download' | 'local-planning';

/**
 * The requests the thread makes (model files, and the local planner server's), reported to the page so
 * that they appear in the egress ledger like every other request (workers/download-reporter.ts).
 * `start` is awaited: its ledger entry exists before the request leaves. `gone` is sent by the bridge when
 * a thread dies: its open requests ended with it. A `start` without `purpose` is a model download.
 */
export type ModelDownloadReport =
  | {
      kind: 'start';
      id: string;
      url: string;
      method: string;
      purpose?: ConductorRequestPurpose;
      /** Request body bytes, when the body is text (the planner server's requests). */
      bytesOut?: number;
    }
  | { kind: 'response'; id: string; status: number }
  /** The tokens a planner request used, as its server counted them (may come after `end`). */
  | { kind: 'usage'; id: string; promptTokens: number; completionTokens: number }
  | { kind: 'end'; id: string; status?: number; bytes: number; error?: string }
  | { kind: 'gone'; reason: string };
