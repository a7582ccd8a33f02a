import { proxy, type Remote, wrap } from 'comlink';
import type { ConductorThreadApi } from '../../workers/conductor.worker.ts';
import { ProviderError } from '../providers/errors.ts';
import type { ChatEvent, ChatRequest, ChatTransport } from '../providers/transport.ts';
import { createChannel } from '../shared/async-channel.ts';
import type { BrowserModelHost } from '../shared/browser-model.ts';
import { hasImages, textMessage } from '../shared/chat.ts';
import {
  ConductorError,
  type ConductorEvent,
  type ConductorListener,
  type ConductorService,
  type GenerationOptions,
  type LoadProgress,
  type LocalChatRequest,
  type LocalChatResponse,
  type ModelDownloadReport,
  type ModelRef,
  type PlanRequest,
  type PlanResponse,
  type ReplanRequest,
  type ReplanResponse,
} from '../shared/conductor-api.ts';
import { engineErrorWords } from '../shared/engine-errors.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export interface BridgeOptions {
  /** Makes the thread (tests inject one; default: the conductor thread module). */
  createConductorThread?: () => Worker;
  /**
   * The model a request runs on when it names none: read from the loaded model's owner (the app's state),
   * so that a thread restarted after a crash reloads what the page believes is loaded. Default: none.
   */
  loadedModel?: () => ModelRef | undefined;
  /** After a soft cancel, how long the call may take to stop before the thread is killed (default 1500 ms). */
  cancelGraceMs?: number;
  /** While a call runs, the thread is pinged this often (default 5000 ms)... */
  pingIntervalMs?: number;
  /** ...and declared dead when a ping gets no answer within this (default 5000 ms). */
  pingTimeoutMs?: number;
  /**
   * Receives the thread's model downloads (src/egress/model-downloads.ts writes them in the ledger). A
   * `start` is awaited by the thread before the request leaves; `gone` comes from the bridge when a thread dies.
   */
  onModelDownload?: (report: ModelDownloadReport) => unknown;
  /** The browser's own model, run on the page for the thread (the Prompt API is not exposed in workers). */
  browserModel?: BrowserModelHost;
  /** The engine the user allowed after the loaded one, named in every generation (`fallback`). */
  fallbackModel?: () => ModelRef | undefined;
}

type Api = Remote<ConductorThreadApi>;

/** One live thread and the promise that rejects when it dies. */
interface Live {
  thread: Worker;
  api: Api;
  dead: Promise<never>;
  /** Terminates the thread; `restart` (default true) counts it as a restart. */
  kill: (reason: string, restart?: boolean) => void;
  isDead: boolean;
}

let counter = 0;
function newRequestId(): string {
  counter += 1;
  return `c${Date.now().toString(36)}-${counter}`;
}

/** Whether two refs name the same model (the thread's `sameModel` is thread code; this is all the page needs). */
function sameRef(a: ModelRef, b: ModelRef): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function defaultConductorThread(): Worker {
  return new Worker(new URL('../../workers/conductor.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-conductor',
  });
}

/**
 * Owns the conductor thread on the page: starts it lazily, queues generations (one runs at a time), turns
 * cancel into a soft stop in the engine and, if the thread does not stop in time (or dies, or stops
 * answering pings), into terminate-and-restart. After a restart the next call reloads the loaded model,
 * as web-llm's `reloadIfUnmatched` does, because every request names its model.
 */
export class ConductorBridge implements ConductorService {
  private live: Live | undefined;
  /** The one queue of generations: each waits for the one before it has settled. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The cancel of each queued or running generation, by request id. */
  private readonly calls = new Map<string, () => void>();
  private readonly cancelGraceMs: number;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;
  private readonly createConductorThread: () => Worker;
  private readonly loadedModel: () => ModelRef | undefined;
  private readonly onModelDownload: ((report: ModelDownloadReport) => unknown) | undefined;
  private readonly browserModel: BrowserModelHost | undefined;
  private readonly fallbackModel: () => ModelRef | undefined;
  private restarts = 0;

  constructor(options: BridgeOptions = {}) {
    this.createConductorThread = options.createConductorThread ?? defaultConductorThread;
    this.loadedModel = options.loadedModel ?? (() => undefined);
    this.cancelGraceMs = options.cancelGraceMs ?? 1500;
    this.pingIntervalMs = options.pingIntervalMs ?? 5000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 5000;
    this.onModelDownload = options.onModelDownload;
    this.browserModel = options.browserModel;
    this.fallbackModel = options.fallbackModel ?? (() => undefined);
  }

  /** How many times the thread was replaced after a crash, hang or hard cancel. */
  get restartCount(): number {
    return this.restarts;
  }

  private start(): Live {
    if (this.live && !this.live.isDead) return this.live;
    const thread = this.createConductorThread();
    const api = wrap<ConductorThreadApi>(thread);
    let reject!: (error: Error) => void;
    const dead = new Promise<never>((_, r) => {
      reject = r;
    });
    dead.catch(() => {});
    const live: Live = {
      thread,
      api,
      dead,
      isDead: false,
      kill: (reason, restart = true) => {
        if (live.isDead) return;
        live.isDead = true;
        if (restart) this.restarts++;
        thread.terminate();
        if (this.live === live) this.live = undefined;
        void Promise.resolve(this.onModelDownload?.({ kind: 'gone', reason })).catch(() => {});
        // What the dead thread had the page's model do is of no use to anyone now.
        this.browserModel?.reset();
        reject(new ConductorError('ThreadCrashed', reason));
      },
    };
    thread.addEventListener('error', (event) => {
      event.preventDefault?.();
      live.kill(`The conductor thread crashed: ${event.message || 'unknown error'}`);
    });
    thread.addEventListener('messageerror', () =>
      live.kill('The conductor thread sent an unreadable message'),
    );
    // Sent before any other call on the same port, so the thread reports from its first download on.
    const onModelDownload = this.onModelDownload;
    if (onModelDownload) void api.watchDownloads(proxy(onModelDownload)).catch(() => {});
    if (this.browserModel) void api.useBrowserModel(proxy(this.browserModel)).catch(() => {});
    this.live = live;
    return live;
  }

  /** Replaces the thread now (the hard stop). The next call starts a new one and reloads the model. */
  restart(reason = 'Restarted'): void {
    this.live?.kill(reason);
  }

  /**
   * A worker terminated from outside, or wedged, never answers: before each generation make sure it
   * answers a ping, else replace it (the request names its model, so the new thread reloads it).
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
    // kill() ignores a thread that is already dead.
    if (!answered) live.kill(`The conductor thread stopped answering for ${this.pingTimeoutMs} ms`);
  }

  /** Runs `call` on the live thread; rejects if the thread dies first. Pings it while waiting. */
  private async guarded<T>(call: (api: Api) => Promise<T>): Promise<T> {
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

  /** Loads a model in the thread. Which model is loaded is the caller's to record (`loadedModel`). */
  async load(model: ModelRef, onProgress?: (progress: LoadProgress) => unknown): Promise<void> {
    const callback = onProgress ? proxy(onProgress) : undefined;
    await this.guarded((api) => api.load(model, callback));
  }

  async unload(): Promise<void> {
    if (this.live) await this.guarded((api) => api.unload());
  }

  async cacheStatus(model: ModelRef) {
    return this.guarded((api) => api.cacheStatus(model));
  }

  async deleteCache(model: ModelRef) {
    return this.guarded((api) => api.deleteCache(model));
  }

  async serverModels(baseURL: string) {
    return this.guarded((api) => api.serverModels(baseURL));
  }

  /** Stops a generation, queued or running: the one cancel path (a request's `signal` comes here too). */
  cancel(requestId: string): void {
    this.calls.get(requestId)?.();
  }

  /**
   * The one path of every generation: it waits its turn in the queue, then runs with a soft cancel through
   * the engine and a hard stop (restart) when the thread does not stop within the grace period. The signal
   * stays here (it cannot be sent); the request crosses with its id and model.
   */
  private generation<R extends GenerationOptions, T>(
    request: R,
    onEvent: ConductorListener | undefined,
    send: (api: Api, request: Omit<R, 'signal'>, listener: ConductorListener) => Promise<T>,
  ): Promise<T> {
    const { signal, ...rest } = request;
    const model = request.model ?? this.loadedModel();
    if (!model) return Promise.reject(new ConductorError('ModelNotLoaded', 'Load a conductor model first'));
    const requestId = request.requestId ?? newRequestId();
    let stop: (() => void) | undefined;
    let cancelledEarly = false;
    const cancel = () => {
      if (stop) stop();
      else cancelledEarly = true;
    };
    this.calls.set(requestId, cancel);
    signal?.addEventListener('abort', cancel, { once: true });
    const turn = this.queue.then(async () => {
      await this.ensureResponsive();
      // Checked after the ping: an abort during it is remembered, not acted on, until the call runs.
      if (cancelledEarly || signal?.aborted) {
        throw new ConductorError('PlanCancelled', 'Cancelled before it started');
      }
      let hardStop: (error: Error) => void = () => {};
      const stopped = new Promise<never>((_, reject) => {
        hardStop = reject;
      });
      stopped.catch(() => {});
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      stop = () => {
        if (graceTimer) return;
        const live = this.live;
        void live?.api.cancel(requestId).catch(() => {});
        graceTimer = setTimeout(() => {
          live?.kill('The conductor did not stop in time and was restarted');
          hardStop(new ConductorError('PlanCancelled', 'Cancelled (the thread was restarted to stop it)'));
        }, this.cancelGraceMs);
      };
      const listener = proxy((event: ConductorEvent) => onEvent?.(event));
      try {
        const fallback = request.fallback ?? this.fallbackModel();
        const wire = {
          ...rest,
          model,
          requestId,
          ...(fallback && !sameRef(fallback, model) ? { fallback } : {}),
        } as Omit<R, 'signal'>;
        return await Promise.race([this.guarded((api) => send(api, wire, listener)), stopped]);
      } finally {
        clearTimeout(graceTimer);
      }
    });
    const settled = turn.finally(() => {
      signal?.removeEventListener('abort', cancel);
      this.calls.delete(requestId);
    });
    this.queue = settled.catch(() => {});
    return settled;
  }

  /** Writes a plan for `request.question`, streaming tokens, each complete step and restarts. */
  plan(request: PlanRequest, onEvent?: ConductorListener): Promise<PlanResponse> {
    return this.generation(request, onEvent, (api, wire, listener) => api.plan(wire, listener));
  }

  /** Corrective steps (recursion), streamed like `plan`. */
  replan(request: ReplanRequest, onEvent?: ConductorListener): Promise<ReplanResponse> {
    return this.generation(request, onEvent, (api, wire, listener) => api.replan(wire, listener));
  }

  /** Answers with the on-device model (the `local` worker). */
  chat(request: LocalChatRequest, onEvent?: ConductorListener): Promise<LocalChatResponse> {
    return this.generation(request, onEvent, (api, wire, listener) => api.chat(wire, listener));
  }

  /** Stops the thread for good (the bridge starts a new one if used again). */
  dispose(): void {
    this.live?.kill('Disposed', false);
    this.live = undefined;
  }

  /** For tests: makes the thread throw an uncaught error, as a crashing engine would. */
  async crashForTests(): Promise<void> {
    await this.start().api.crashForTests();
  }

  /** For tests: the current thread, to kill it from outside. */
  get conductorThreadForTests(): Worker | undefined {
    return this.live?.thread;
  }
}

/** The on-device `local` worker as a ChatTransport: the executor streams it like any cloud model. */
export class LocalChatTransport implements ChatTransport {
  constructor(private readonly bridge: Pick<ConductorBridge, 'chat'>) {}

  async *stream(_worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
    // Nothing leaves the device, but the rule is the same for every worker: inputs stored first.
    await request.ready;
    if (request.messages.some((message) => hasImages(message.content))) {
      throw new ProviderError(
        'bad-request',
        'The on-device model reads text only: it cannot be sent an image.',
      );
    }
    const tokens = createChannel<string>();
    const call = this.bridge
      .chat({ messages: request.messages.map(textMessage), signal: request.signal }, (event) => {
        if (event.kind === 'token') tokens.push(event.text);
      })
      .finally(() => tokens.close());
    call.catch(() => {});
    for await (const text of tokens) yield { type: 'delta', text };
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
  if (e.name === 'ThreadCrashed')
    return new ProviderError('server', `The on-device model crashed: ${e.message}`);
  return new ProviderError(
    'server',
    engineErrorWords(error) ?? `The on-device model failed: ${e.message ?? String(error)}`,
  );
}
