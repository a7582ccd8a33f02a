import { proxy, type Remote, wrap } from 'comlink';
import type { ConductorApi } from '../../workers/conductor.worker.ts';
import type { Conductor, ReplanInput } from '../executor/types.ts';
import type { Step } from '../plan/index.ts';
import type { WorkerSpec } from '../pool/types.ts';
import { ProviderError } from '../providers/errors.ts';
import type { ChatEvent, ChatRequest, ChatTransport } from '../providers/transport.ts';
import {
  ConductorError,
  type ConductorEvent,
  type LoadProgress,
  type LocalChatResponse,
  type ModelDownloadReport,
  type ModelRef,
  type PlanRequest,
  type PlanResponse,
  type PoolEntry,
  type ReplanRequest,
  type ReplanResponse,
  type StepEvent,
} from './api-types.ts';

export interface BridgeOptions {
  /** Makes the worker (tests inject one; default: the conductor worker module). */
  createWorker?: () => Worker;
  /** After a soft cancel, how long the call may take to stop before the worker is killed (default 1500 ms). */
  cancelGraceMs?: number;
  /** While a call runs, the worker is pinged this often (default 5000 ms)... */
  pingIntervalMs?: number;
  /** ...and declared dead when a ping gets no answer within this (default 5000 ms). */
  pingTimeoutMs?: number;
  /**
   * Receives the worker's model downloads (src/egress/model-downloads.ts writes them in the ledger). A
   * `start` is awaited by the worker before the request leaves; `gone` comes from the bridge when a worker dies.
   */
  onModelDownload?: (report: ModelDownloadReport) => unknown;
}

export interface StreamOptions {
  onToken?: (text: string) => void;
  onStep?: (event: StepEvent) => void;
  signal?: AbortSignal;
}

type Without<T> = Omit<T, 'requestId' | 'model'> & { model?: ModelRef };

/** One live worker and the promise that rejects when it dies. */
interface Live {
  worker: Worker;
  api: Remote<ConductorApi>;
  dead: Promise<never>;
  /** Terminates the worker; `restart` (default true) counts it as a restart. */
  kill: (reason: string, restart?: boolean) => void;
  isDead: boolean;
}

let counter = 0;
function newRequestId(): string {
  counter += 1;
  return `c${Date.now().toString(36)}-${counter}`;
}

function defaultWorker(): Worker {
  return new Worker(new URL('../../workers/conductor.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-conductor',
  });
}

/**
 * Owns the conductor worker on the page: starts it lazily, runs one generation at a time, turns
 * cancel into a soft stop in the engine and, if the worker does not stop in time (or dies, or stops
 * answering pings), into terminate-and-restart. After a restart the next call reloads the last model,
 * as web-llm's `reloadIfUnmatched` does, because every request names its model.
 */
export class ConductorBridge implements Conductor {
  private live: Live | undefined;
  private model: ModelRef | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private running: { requestId: string; cancel: () => void } | undefined;
  private readonly cancelGraceMs: number;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;
  private readonly createWorker: () => Worker;
  private readonly onModelDownload: ((report: ModelDownloadReport) => unknown) | undefined;
  private restarts = 0;

  constructor(options: BridgeOptions = {}) {
    this.createWorker = options.createWorker ?? defaultWorker;
    this.cancelGraceMs = options.cancelGraceMs ?? 1500;
    this.pingIntervalMs = options.pingIntervalMs ?? 5000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 5000;
    this.onModelDownload = options.onModelDownload;
  }

  /** How many times the worker was replaced after a crash, hang or hard cancel. */
  get restartCount(): number {
    return this.restarts;
  }

  /** The model the bridge keeps loaded (reloaded after a restart). */
  get currentModel(): ModelRef | undefined {
    return this.model;
  }

  private start(): Live {
    if (this.live && !this.live.isDead) return this.live;
    const worker = this.createWorker();
    const api = wrap<ConductorApi>(worker);
    let reject!: (error: Error) => void;
    const dead = new Promise<never>((_, r) => {
      reject = r;
    });
    dead.catch(() => {});
    const live: Live = {
      worker,
      api,
      dead,
      isDead: false,
      kill: (reason, restart = true) => {
        if (live.isDead) return;
        live.isDead = true;
        if (restart) this.restarts++;
        worker.terminate();
        if (this.live === live) this.live = undefined;
        void Promise.resolve(this.onModelDownload?.({ kind: 'gone', reason })).catch(() => {});
        reject(new ConductorError('WorkerCrashed', reason));
      },
    };
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      live.kill(`The conductor worker crashed: ${event.message || 'unknown error'}`);
    });
    worker.addEventListener('messageerror', () =>
      live.kill('The conductor worker sent an unreadable message'),
    );
    // Sent before any other call on the same port, so the worker reports from its first download on.
    const onModelDownload = this.onModelDownload;
    if (onModelDownload) void api.watchDownloads(proxy(onModelDownload)).catch(() => {});
    this.live = live;
    return live;
  }

  /** Replaces the worker now (the hard stop). The next call starts a new one and reloads the model. */
  restart(reason = 'Restarted'): void {
    this.live?.kill(reason);
  }

  /**
   * A worker terminated from outside, or wedged, never answers: before each generation make sure it
   * answers a ping, else replace it (the request names its model, so the new worker reloads it).
   */
  private async ensureResponsive(): Promise<void> {
    const live = this.live;
    if (live && !live.isDead) await this.checkAlive(live);
  }

  /** Pings `live` once; kills it when no answer comes within the ping timeout. */
  private async checkAlive(live: Live): Promise<void> {
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const answered = await Promise.race([
      live.api.ping().then(() => true),
      new Promise<boolean>((resolve) => {
        timeout = setTimeout(() => resolve(false), this.pingTimeoutMs);
      }),
      live.dead.catch(() => true),
    ]);
    clearTimeout(timeout);
    // kill() ignores a worker that is already dead.
    if (!answered) live.kill(`The conductor worker stopped answering for ${this.pingTimeoutMs} ms`);
  }

  /** Runs `call` on the live worker; rejects if the worker dies first. Pings it while waiting. */
  private async guarded<T>(call: (api: Remote<ConductorApi>) => Promise<T>): Promise<T> {
    const live = this.start();
    let timer: ReturnType<typeof setInterval> | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setInterval(() => void this.checkAlive(live), this.pingIntervalMs);
      live.dead.catch(reject);
    });
    watchdog.catch(() => {});
    try {
      return await Promise.race([call(live.api), live.dead, watchdog]);
    } finally {
      clearInterval(timer);
    }
  }

  async capabilities() {
    return this.guarded((api) => api.capabilities());
  }

  async models() {
    return this.guarded((api) => api.models());
  }

  /** Loads a model and remembers it: later calls use it, and a restarted worker reloads it. */
  async load(model: ModelRef, onProgress?: (progress: LoadProgress) => void): Promise<void> {
    this.model = model;
    const callback = onProgress ? proxy(onProgress) : undefined;
    await this.guarded((api) => api.load(model, callback));
  }

  async unload(): Promise<void> {
    this.model = undefined;
    if (this.live) await this.guarded((api) => api.unload());
  }

  async cacheStatus(model: ModelRef) {
    return this.guarded((api) => api.cacheStatus(model));
  }

  async deleteCache(model: ModelRef) {
    return this.guarded((api) => api.deleteCache(model));
  }

  /** Stops the running generation (and everything queued). */
  cancel(): void {
    this.running?.cancel();
  }

  private modelFor(request: { model?: ModelRef }): ModelRef {
    const model = request.model ?? this.model;
    if (!model) throw new ConductorError('ModelNotLoaded', 'Load a conductor model first');
    return model;
  }

  /**
   * One generation at a time: waits its turn, then runs, with a soft cancel through the engine and a hard
   * stop (restart) when the worker does not stop within the grace period.
   */
  private exclusive<T>(
    options: StreamOptions,
    run: (
      api: Remote<ConductorApi>,
      requestId: string,
      onEvent: (event: ConductorEvent) => void,
    ) => Promise<T>,
  ): Promise<T> {
    const requestId = newRequestId();
    const { signal, onToken, onStep } = options;
    const turn = this.queue.then(async () => {
      await this.ensureResponsive();
      // Checked after the ping: an abort during it would otherwise fire before the listener below exists.
      if (signal?.aborted) throw new ConductorError('PlanCancelled', 'Cancelled before it started');
      let hardStop: (error: Error) => void = () => {};
      const stopped = new Promise<never>((_, reject) => {
        hardStop = reject;
      });
      stopped.catch(() => {});
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const cancel = () => {
        if (graceTimer) return;
        const live = this.live;
        void live?.api.cancel(requestId).catch(() => {});
        graceTimer = setTimeout(() => {
          live?.kill('The conductor did not stop in time and was restarted');
          hardStop(new ConductorError('PlanCancelled', 'Cancelled (the worker was restarted to stop it)'));
        }, this.cancelGraceMs);
      };
      this.running = { requestId, cancel };
      signal?.addEventListener('abort', cancel, { once: true });
      const onEvent = proxy((event: ConductorEvent) => {
        if (event.kind === 'token') onToken?.(event.text);
        else if (event.kind !== 'flush') onStep?.(event);
      });
      try {
        return await Promise.race([this.guarded((api) => run(api, requestId, onEvent)), stopped]);
      } finally {
        clearTimeout(graceTimer);
        signal?.removeEventListener('abort', cancel);
        if (this.running?.requestId === requestId) this.running = undefined;
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Writes a plan for `question`, streaming tokens and each complete step. */
  plan(request: Without<PlanRequest>, options: StreamOptions = {}): Promise<PlanResponse> {
    const model = this.modelFor(request);
    return this.exclusive(options, (api, requestId, onEvent) =>
      api.plan({ ...request, model, requestId }, onEvent),
    );
  }

  /** Corrective steps (recursion), streamed like `plan`. */
  replanWith(request: Without<ReplanRequest>, options: StreamOptions = {}): Promise<ReplanResponse> {
    const model = this.modelFor(request);
    return this.exclusive(options, (api, requestId, onEvent) =>
      api.replan({ ...request, model, requestId }, onEvent),
    );
  }

  /** Answers with the on-device model (the `local` worker). */
  chat(
    request: Without<Parameters<ConductorApi['chat']>[0]>,
    options: StreamOptions = {},
  ): Promise<LocalChatResponse> {
    const model = this.modelFor(request);
    return this.exclusive(options, (api, requestId, onEvent) =>
      api.chat({ ...request, model, requestId }, onEvent),
    );
  }

  /** The pool the executor's `self` steps plan for; set by the app before a run. */
  replanContext: { pool: PoolEntry[]; maxSteps?: number; maxDepth?: number } | undefined;

  /** The executor's `Conductor`: corrective steps for a `self` step, or [] to accept. */
  async replan(input: ReplanInput): Promise<Step[]> {
    const context = this.replanContext;
    if (!context) throw new ConductorError('NoWorkers', 'The conductor has no pool to plan for');
    const response = await this.replanWith(
      {
        question: input.question,
        pool: context.pool,
        steps: [...input.steps],
        answers: input.answers.map((answer) => answer ?? null),
        depth: input.depth,
        ...(context.maxSteps ? { maxSteps: context.maxSteps } : {}),
        ...(context.maxDepth !== undefined ? { maxDepth: context.maxDepth } : {}),
      },
      { signal: input.signal },
    );
    return response.steps;
  }

  /** Stops the worker for good (the bridge starts a new one if used again). */
  dispose(): void {
    this.live?.kill('Disposed', false);
    this.live = undefined;
  }

  /** For tests: makes the worker throw an uncaught error, as a crashing engine would. */
  async crashForTests(): Promise<void> {
    await this.start().api.crashForTests();
  }

  /** For tests: the current worker, to kill it from outside. */
  get workerForTests(): Worker | undefined {
    return this.live?.worker;
  }
}

/** The on-device `local` worker as a ChatTransport: the executor streams it like any cloud model. */
export class LocalChatTransport implements ChatTransport {
  constructor(private readonly bridge: Pick<ConductorBridge, 'chat'>) {}

  async *stream(_worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
    const pending: string[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    const call = this.bridge
      .chat(
        { messages: request.messages },
        {
          signal: request.signal,
          onToken: (text) => {
            pending.push(text);
            wake?.();
          },
        },
      )
      .finally(() => {
        finished = true;
        wake?.();
      });
    call.catch(() => {});
    while (!finished || pending.length > 0) {
      if (pending.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      yield { type: 'delta', text: pending.splice(0).join('') };
    }
    let response: LocalChatResponse;
    try {
      response = await call;
    } catch (error) {
      throw toProviderError(error, request.signal);
    }
    yield {
      type: 'usage',
      promptTokens: response.stats.promptTokens,
      completionTokens: response.stats.completionTokens,
    };
  }
}

function toProviderError(error: unknown, signal: AbortSignal): ProviderError {
  const e = error as { name?: string; message?: string };
  if (signal.aborted || e.name === 'PlanCancelled') return new ProviderError('aborted', 'Cancelled');
  if (e.name === 'WorkerCrashed')
    return new ProviderError('server', `The on-device model crashed: ${e.message}`);
  return new ProviderError('server', `The on-device model failed: ${e.message ?? String(error)}`);
}
