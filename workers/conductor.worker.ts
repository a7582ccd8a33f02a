import { expose, releaseProxy } from 'comlink';
import { type Capabilities, probeCapabilities } from '../src/shared/capabilities.ts';
import type {
  CacheStatus,
  ConductorEvent,
  LoadProgress,
  LocalChatRequest,
  LocalChatResponse,
  ModelDownloadReport,
  ModelRef,
  PlanRequest,
  PlanResponse,
  ReplanRequest,
  ReplanResponse,
} from '../src/shared/conductor-api.ts';
import { chooseConductorModel, listConductorModels } from '../src/shared/model-choice.ts';
import { installDownloadReporter, setDownloadListener } from './download-reporter.ts';
import { EngineHost } from './engine-host.ts';
import { type ConductorEngine, sameModel } from './engines/engine.ts';
import { createWllamaEngine, wllamaCacheStatus, wllamaDeleteCache } from './engines/wllama.ts';
import { loadWebLlm } from './webllm-loader.ts';

/**
 * The conductor thread: the on-device engines and the planner behind one comlink API. The page imports
 * only the type (`import type { ConductorApi }`); web-llm is imported lazily, here, when first needed.
 */

async function createEngine(kind: ModelRef['engine']): Promise<ConductorEngine> {
  if (kind === 'wllama') return createWllamaEngine();
  return (await loadWebLlm()).createWebLlmEngine();
}

// Before any engine loads: every model file the thread fetches is reported to the page's ledger.
installDownloadReporter();

const host = new EngineHost(createEngine);
let caps: Promise<Capabilities> | undefined;

const api = {
  /** Answers at once: the bridge uses it to tell a busy thread from a dead one. */
  ping(): 'pong' {
    return 'pong';
  },

  /** For tests of the bridge's recovery: an uncaught error, as a crashing engine would raise. */
  crashForTests(): void {
    setTimeout(() => {
      throw new Error('Crash requested by a test');
    });
  },

  capabilities(): Promise<Capabilities> {
    caps ??= probeCapabilities();
    return caps;
  },

  /** The model candidates and the recommended choice for this device. */
  async models() {
    const capabilities = await api.capabilities();
    return { choice: chooseConductorModel(capabilities), candidates: listConductorModels() };
  },

  /**
   * Where the thread reports its model downloads (a comlink proxy): the page writes each in the egress
   * ledger. Set by the bridge as soon as it starts the thread, so a reload after a restart is reported too.
   */
  watchDownloads(onDownload: ((report: ModelDownloadReport) => unknown) | undefined): void {
    setDownloadListener(onDownload);
  },

  loaded(): ModelRef | undefined {
    return host.loaded();
  },

  /** Loads a model. `onProgress` is a comlink proxy, called fire-and-forget. */
  load(model: ModelRef, onProgress?: (progress: LoadProgress) => void): Promise<void> {
    return host.load(model, (progress) => {
      void onProgress?.(progress);
    });
  },

  /**
   * Writes a plan. Tokens and each validated step stream through `onEvent` (a comlink proxy); the call
   * resolves after the page has received every event.
   */
  plan(request: PlanRequest, onEvent?: (event: ConductorEvent) => unknown): Promise<PlanResponse> {
    return streamed(onEvent, (emit) =>
      host.plan(
        request,
        (text) => emit({ kind: 'token', text }),
        (event) => emit(event),
      ),
    );
  },

  /** Corrective steps for a `self` step (recursion), streamed like `plan`. */
  replan(request: ReplanRequest, onEvent?: (event: ConductorEvent) => unknown): Promise<ReplanResponse> {
    return streamed(onEvent, (emit) =>
      host.replan(
        request,
        (text) => emit({ kind: 'token', text }),
        (event) => emit(event),
      ),
    );
  },

  /** Answers a step with the on-device model (the `local` worker), streaming plain text. */
  chat(request: LocalChatRequest, onEvent?: (event: ConductorEvent) => unknown): Promise<LocalChatResponse> {
    return streamed(onEvent, (emit) => host.chat(request, (text) => emit({ kind: 'token', text })));
  },

  cancel(requestId: string): boolean {
    return host.cancel(requestId);
  },

  unload(): Promise<void> {
    return host.unload();
  },

  async cacheStatus(model: ModelRef): Promise<CacheStatus> {
    if (model.engine === 'wllama') return wllamaCacheStatus(model.url);
    const webllm = await loadWebLlm();
    return webllm.webLlmCacheStatus(model);
  },

  async deleteCache(model: ModelRef): Promise<boolean> {
    if (sameModel(host.loaded(), model)) await host.unload();
    if (model.engine === 'wllama') return wllamaDeleteCache(model.url);
    const webllm = await loadWebLlm();
    return webllm.webLlmDeleteCache(model);
  },
};

export type ConductorApi = typeof api;

/**
 * Runs a streaming call: events go out fire-and-forget, then one awaited event-less round trip on the same
 * port guarantees the page has them all before the result; finally the page's callback proxy is released.
 */
async function streamed<T>(
  onEvent: ((event: ConductorEvent) => unknown) | undefined,
  run: (emit: (event: ConductorEvent) => void) => Promise<T>,
): Promise<T> {
  const emit = (event: ConductorEvent) => {
    void Promise.resolve(onEvent?.(event)).catch(() => {});
  };
  try {
    return await run(emit);
  } finally {
    if (onEvent) {
      await Promise.resolve(onEvent({ kind: 'flush' })).catch(() => {});
      (onEvent as unknown as { [releaseProxy]?: () => void })[releaseProxy]?.();
    }
  }
}

expose(api);
