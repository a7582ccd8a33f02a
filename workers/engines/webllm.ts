import type {
  AppConfig,
  ChatCompletionChunk,
  ChatCompletionRequestStreaming,
  InitProgressReport,
  ModelRecord,
} from '@mlc-ai/web-llm';

/** web-llm's AppConfig.cacheBackend values ('cache' | 'indexeddb' | 'cross-origin' | 'opfs'). */
export type CacheBackend = NonNullable<AppConfig['cacheBackend']>;

import { EngineError } from '../../src/shared/engine-errors.ts';
import { thinksAloud } from '../../src/shared/model-choice.ts';
import { downloadStatusError } from './download-failure.ts';
import {
  type ConductorEngine,
  type GenerateRequest,
  type GenerateResult,
  type LoadProgress,
  type ModelRef,
  sameModel,
} from './engine.ts';

/**
 * The WebGPU engine: web-llm's MLCEngine, in-process inside our conductor thread (the thread is ours, so
 * we do not need web-llm's own worker proxy). web-llm is imported dynamically and only here: its bundle is
 * ~2 MB gzip and must never reach the page.
 */

/** The part of web-llm's MLCEngine we use. Tests replace it (the lowest layer), as web-llm's CI does. */
export interface MlcEngineLike {
  reload(modelId: string): Promise<void>;
  unload(): Promise<void>;
  interruptGenerate(): Promise<void> | void;
  setAppConfig(appConfig: AppConfig): void;
  chat: {
    completions: {
      create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>;
    };
  };
}

export interface MlcEngineConfig {
  appConfig: AppConfig;
  initProgressCallback: (report: InitProgressReport) => void;
}

/** web-llm's module-level cache functions. */
export interface MlcCache {
  hasModelInCache(modelId: string, appConfig?: AppConfig): Promise<boolean>;
  deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
}

export interface WebLlmDeps {
  /** Makes the engine. Default: `new MLCEngine(config)` from a dynamic import of @mlc-ai/web-llm. */
  createEngine?: (config: MlcEngineConfig) => MlcEngineLike | Promise<MlcEngineLike>;
  /** Cache lookups. Default: web-llm's `hasModelInCache` / `deleteModelAllInfoInCache`. */
  cache?: MlcCache;
  /** The prebuilt model records. Default: web-llm's `prebuiltAppConfig.model_list`. */
  prebuiltModels?: () => Promise<ModelRecord[]> | ModelRecord[];
  /** Where downloaded models are kept. Default 'cache' (the Cache API: web-llm's best-tested backend). */
  cacheBackend?: CacheBackend;
}

/** We set it explicitly: web-llm's default could change, and the old `useIndexedDBCache` flag is gone. */
export const DEFAULT_CACHE_BACKEND: CacheBackend = 'cache';

type WebLlmRef = Extract<ModelRef, { engine: 'webllm' }>;

async function loadWebLlm() {
  return import('@mlc-ai/web-llm');
}

const defaultDeps = {
  async createEngine(config: MlcEngineConfig): Promise<MlcEngineLike> {
    const webllm = await loadWebLlm();
    return new webllm.MLCEngine({ ...config, logLevel: 'WARN' });
  },
  cache: {
    async hasModelInCache(modelId: string, appConfig?: AppConfig) {
      return (await loadWebLlm()).hasModelInCache(modelId, appConfig);
    },
    async deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig) {
      return (await loadWebLlm()).deleteModelAllInfoInCache(modelId, appConfig);
    },
  } satisfies MlcCache,
  async prebuiltModels(): Promise<ModelRecord[]> {
    return (await loadWebLlm()).prebuiltAppConfig.model_list;
  },
};

// ---------------------------------------------------------------------------------------------------------
// Progress

const MB = 1024 * 1024;
// Formats written by web-llm 0.2.86's runtime (tvmjs fetchTensorCache and shader compilation):
//   "Fetching param cache[3/50]: 300MB fetched. 20% completed, 30 secs elapsed. It can take a while..."
//   "Loading model from cache[3/50]: 300MB loaded. 20% completed, 30 secs elapsed."
//   "Loading GPU shader modules[10/120]: 8% completed, 2 secs elapsed."
//   "Start to fetch params", "Finish loading on WebGPU - <adapter>"
const FETCHING =
  /^Fetching param cache\[(\d+)\/(\d+)\]: (\d+)MB fetched\. (\d+)% completed, (\d+) secs elapsed/;
const FROM_CACHE =
  /^Loading model from cache\[(\d+)\/(\d+)\]: (\d+)MB loaded\. (\d+)% completed, (\d+) secs elapsed/;
const SHADERS = /^Loading GPU shader modules\[(\d+)\/(\d+)\]/;

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** Turns one of web-llm's InitProgressReports into our LoadProgress (bytes, speed and time left where derivable). */
export function mapInitProgress(report: InitProgressReport): LoadProgress {
  const fraction = clamp01(report.progress);
  const base = { fraction, text: report.text, elapsedSeconds: report.timeElapsed };
  const fetching = FETCHING.exec(report.text);
  if (fetching) {
    // web-llm rounds the megabytes up; the fraction is exact (fetchedBytes / totalBytes).
    const loadedBytes = Number(fetching[3]) * MB;
    const progress: LoadProgress = { ...base, phase: 'download', loadedBytes };
    if (fraction > 0) progress.totalBytes = Math.round(loadedBytes / fraction);
    if (report.timeElapsed > 0 && loadedBytes > 0) {
      progress.bytesPerSecond = loadedBytes / report.timeElapsed;
      if (progress.totalBytes !== undefined) {
        progress.secondsLeft = Math.max(0, (progress.totalBytes - loadedBytes) / progress.bytesPerSecond);
      }
    }
    return progress;
  }
  const cached = FROM_CACHE.exec(report.text);
  if (cached) {
    const loadedBytes = Number(cached[3]) * MB;
    const progress: LoadProgress = { ...base, phase: 'cache', loadedBytes };
    if (fraction > 0) progress.totalBytes = Math.round(loadedBytes / fraction);
    return progress;
  }
  if (report.text.startsWith('Start to fetch params')) return { ...base, phase: 'download' };
  if (SHADERS.test(report.text)) return { ...base, phase: 'compile' };
  return { ...base, phase: 'init' };
}

// ---------------------------------------------------------------------------------------------------------
// Errors

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Maps whatever web-llm (or WebGPU, or fetch) threw into an EngineError the page can act on. */
export function toEngineError(
  error: unknown,
  modelId: string | undefined,
  during: 'load' | 'generate',
): Error {
  if (error instanceof EngineError) return error;
  const name = error instanceof Error ? error.name : '';
  const message = messageOf(error);
  const model = modelId ?? 'the model';
  if (name === 'AbortError') return error as Error;
  if (
    name === 'DeviceLostError' ||
    /device (was |is )?lost|GPUDeviceLostInfo|instance dropped/i.test(message)
  ) {
    return new EngineError(
      'DeviceLostError',
      `The GPU stopped working while ${during === 'load' ? 'loading' : 'running'} ${model} (WebGPU device lost, ` +
        'often because it ran out of memory). Reload the model, pick a smaller one, or use the CPU engine.',
      { cause: error },
    );
  }
  if (/out of memory|outofmemory|\bOOM\b|failed to allocate|allocation failed/i.test(message)) {
    return new EngineError(
      'OutOfMemoryError',
      `${model} does not fit in this GPU's memory. Pick a smaller model or use the CPU engine.`,
      { cause: error },
    );
  }
  if (
    /dynamically imported module|importing a module script failed|error loading dynamically imported/i.test(
      message,
    )
  ) {
    return new EngineError(
      'ModelFetchError',
      `Could not load the WebLLM engine's code (${message}): the app's server is unreachable, probably offline. ` +
        'Try again when online, or use the CPU engine.',
      { cause: error },
    );
  }
  // A model file answered with an error status (the thread's Cache.add, workers/download-reporter.ts).
  const status = /Could not get (\S+): HTTP (\d{3})/.exec(message);
  if (status?.[1] && status[2]) return downloadStatusError(model, status[1], Number(status[2]));
  if (
    (name === 'TypeError' && /fetch|network|load failed/i.test(message)) ||
    name === 'NetworkError' ||
    /failed to fetch|networkerror|cannot fetch|err_internet_disconnected|err_name_not_resolved/i.test(message)
  ) {
    return new EngineError(
      'ModelFetchError',
      `Could not download ${model}: the network or the model host is unreachable (${message}). ` +
        'Check the connection and try again, or use the CPU engine with a model you can reach.',
      { cause: error },
    );
  }
  if (name === 'WebGPUNotAvailableError' || name === 'WebGPUNotFoundError') {
    return new EngineError(
      'WebGpuUnavailableError',
      'WebGPU is not available in the conductor thread, so WebLLM cannot run. Use the CPU engine.',
      { cause: error },
    );
  }
  if (
    name === 'ShaderF16SupportError' ||
    name === 'FeatureSupportError' ||
    /Cannot initialize runtime because of requested/.test(message)
  ) {
    return new EngineError(
      'UnsupportedModelError',
      `This GPU cannot run ${model}: ${message} Pick a q4f32_1 or smaller model, or use the CPU engine.`,
      { cause: error },
    );
  }
  if (
    name === 'ModelNotFoundError' ||
    name === 'MissingModelWasmError' ||
    name === 'UnsupportedModelIdError'
  ) {
    return new EngineError('InvalidModelError', message, { cause: error });
  }
  return new EngineError(
    'EngineFailure',
    `WebLLM failed while ${during === 'load' ? 'loading' : 'generating'}: ${message}`,
    {
      cause: error,
    },
  );
}

// ---------------------------------------------------------------------------------------------------------
// Custom models

function absoluteHttpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EngineError(
      'InvalidModelError',
      `The ${what} must be an absolute URL (https://...), got "${value}".`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new EngineError('InvalidModelError', `The ${what} must be an http(s) URL, got "${value}".`);
  }
  return url.href;
}

/**
 * The app-config record for a custom MLC model. Note: web-llm appends `resolve/main/` to the weights URL
 * unless it already has a `/resolve/<branch>/` segment (Hugging Face layout), on any host.
 */
export function customModelRecord(ref: WebLlmRef): ModelRecord | undefined {
  if (ref.modelUrl === undefined && ref.modelLibUrl === undefined) return undefined;
  if (ref.modelUrl === undefined || ref.modelLibUrl === undefined) {
    throw new EngineError(
      'InvalidModelError',
      'A custom MLC model needs both the weights URL and the model library (.wasm) URL.',
    );
  }
  return {
    model_id: ref.modelId,
    model: absoluteHttpUrl(ref.modelUrl, 'model URL'),
    model_lib: absoluteHttpUrl(ref.modelLibUrl, 'model library URL'),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The engine

function asWebLlm(model: ModelRef): WebLlmRef {
  if (model.engine !== 'webllm') {
    throw new EngineError('InvalidModelError', `The WebLLM engine cannot load a ${model.engine} model.`);
  }
  return model;
}

export interface WebLlmEngine extends ConductorEngine {
  readonly kind: 'webllm';
  isCached(model: ModelRef): Promise<boolean>;
  deleteCached(model: ModelRef): Promise<void>;
  /** The app config last given to web-llm (cacheBackend, model list), for tests and diagnostics. */
  appConfig(): AppConfig | undefined;
}

export function createWebLlmEngine(deps: WebLlmDeps = {}): WebLlmEngine {
  const createEngine = deps.createEngine ?? defaultDeps.createEngine;
  const cache = deps.cache ?? defaultDeps.cache;
  const prebuiltModels = deps.prebuiltModels ?? defaultDeps.prebuiltModels;
  const cacheBackend = deps.cacheBackend ?? DEFAULT_CACHE_BACKEND;

  let engine: MlcEngineLike | undefined;
  let current: WebLlmRef | undefined;
  let config: AppConfig | undefined;
  let onProgress: ((progress: LoadProgress) => void) | undefined;
  let generating = false;

  async function appConfigFor(ref: WebLlmRef): Promise<AppConfig> {
    const custom = customModelRecord(ref);
    const prebuilt = await prebuiltModels();
    const list = custom ? [...prebuilt.filter((r) => r.model_id !== custom.model_id), custom] : prebuilt;
    return { model_list: list, cacheBackend };
  }

  async function ensureEngine(appConfig: AppConfig): Promise<MlcEngineLike> {
    if (!engine) {
      engine = await createEngine({
        appConfig,
        initProgressCallback: (report) => onProgress?.(mapInitProgress(report)),
      });
    } else {
      engine.setAppConfig(appConfig);
    }
    config = appConfig;
    return engine;
  }

  const self: WebLlmEngine = {
    kind: 'webllm',

    async load(model, progress) {
      const ref = asWebLlm(model);
      if (sameModel(current, ref)) return;
      onProgress = progress;
      try {
        const mlc = await ensureEngine(await appConfigFor(ref));
        current = undefined;
        await mlc.reload(ref.modelId);
        current = ref;
      } catch (error) {
        current = undefined;
        throw toEngineError(error, ref.modelId, 'load');
      } finally {
        onProgress = undefined;
      }
    },

    loaded() {
      return current;
    },

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const mlc = engine;
      const ref = current;
      if (!mlc || !ref) throw new EngineError('EngineFailure', 'No WebLLM model is loaded: load one first.');
      if (generating)
        throw new EngineError('EngineFailure', 'WebLLM is already generating: one plan at a time.');
      if (request.signal.aborted) {
        return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'abort' };
      }
      generating = true;
      const onAbort = () => void mlc.interruptGenerate();
      request.signal.addEventListener('abort', onAbort, { once: true });
      const body: ChatCompletionRequestStreaming = {
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: request.maxTokens,
        temperature: request.temperature,
      };
      if (request.jsonSchema) {
        body.response_format = { type: 'json_object', schema: JSON.stringify(request.jsonSchema) };
      }
      // Qwen3 and Qwen3.5 think aloud unless told not to; a planner under a JSON constraint should not.
      // web-llm then writes an empty <think></think> block after the assistant header itself.
      if (thinksAloud(ref.modelId)) {
        body.extra_body = { enable_thinking: false };
      }
      let text = '';
      let finish: GenerateResult['finishReason'] = 'stop';
      const result: GenerateResult = { text, promptTokens: 0, completionTokens: 0, finishReason: finish };
      try {
        const stream = await mlc.chat.completions.create(body);
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          const delta = choice?.delta.content;
          if (delta) {
            text += delta;
            request.onToken(delta);
          }
          if (choice?.finish_reason === 'length') finish = 'length';
          else if (choice?.finish_reason === 'abort') finish = 'abort';
          if (chunk.usage) {
            result.promptTokens = chunk.usage.prompt_tokens;
            result.completionTokens = chunk.usage.completion_tokens;
            const extra = chunk.usage.extra;
            if (extra && Number.isFinite(extra.prefill_tokens_per_s)) {
              result.prefillTokensPerSec = extra.prefill_tokens_per_s;
            }
            if (extra && Number.isFinite(extra.decode_tokens_per_s)) {
              result.decodeTokensPerSec = extra.decode_tokens_per_s;
            }
          }
        }
      } catch (error) {
        const mapped = toEngineError(error, ref.modelId, 'generate');
        // After a lost device web-llm has unloaded everything: the next call must load again.
        if (mapped.name === 'DeviceLostError' || mapped.name === 'OutOfMemoryError') current = undefined;
        throw mapped;
      } finally {
        generating = false;
        request.signal.removeEventListener('abort', onAbort);
      }
      if (request.signal.aborted) finish = 'abort';
      result.text = text;
      result.finishReason = finish;
      return result;
    },

    interrupt() {
      if (engine && generating) void engine.interruptGenerate();
    },

    async unload() {
      const mlc = engine;
      current = undefined;
      if (mlc) await mlc.unload();
    },

    async isCached(model) {
      const ref = asWebLlm(model);
      try {
        return await cache.hasModelInCache(ref.modelId, await appConfigFor(ref));
      } catch (error) {
        // An unknown id is "not cached", not a failure of the cache.
        if (error instanceof Error && error.name === 'ModelNotFoundError') return false;
        throw toEngineError(error, ref.modelId, 'load');
      }
    },

    async deleteCached(model) {
      const ref = asWebLlm(model);
      if (sameModel(current, ref)) await self.unload();
      await cache.deleteModelAllInfoInCache(ref.modelId, await appConfigFor(ref));
    },

    appConfig() {
      return config;
    },
  };
  return self;
}

/** Whether a WebLLM model is in the browser cache (for the thread's cache-status call; loads no model). */
export async function webLlmCacheStatus(
  model: ModelRef,
  deps: WebLlmDeps = {},
): Promise<{ cached: boolean }> {
  return { cached: await createWebLlmEngine(deps).isCached(model) };
}

/** Deletes a WebLLM model from the browser cache; true when it was cached. Unload it first if it is loaded. */
export async function webLlmDeleteCache(model: ModelRef, deps: WebLlmDeps = {}): Promise<boolean> {
  const engine = createWebLlmEngine(deps);
  const was = await engine.isCached(model);
  await engine.deleteCached(model);
  return was;
}
