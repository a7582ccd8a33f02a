import type { ChatCompletionChunk } from '@wllama/wllama';
import { Wllama } from '@wllama/wllama';
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import { ConductorError } from '../../src/shared/conductor-api.ts';
import { EngineError } from '../../src/shared/engine-errors.ts';
import { downloadNetworkError, downloadStatusError } from './download-failure.ts';
import {
  type ConductorEngine,
  type GenerateRequest,
  type GenerateResult,
  type LoadProgress,
  type ModelRef,
  sameModel,
} from './engine.ts';
import { llamaThreads } from './llama-threads.ts';

type WllamaModel = Extract<ModelRef, { engine: 'wllama' }>;

export interface WllamaEngineOptions {
  /** Give up loading after this long (default 120 s): without `blob:` workers or `'wasm-unsafe-eval'` in the CSP, wllama's load never settles. */
  loadTimeoutMs?: number;
  /** Context size in tokens (default 4096). */
  contextTokens?: number;
  /** Cache Storage name for downloaded GGUF files (default `baton-gguf`). */
  cacheName?: string;
}

const DEFAULT_CACHE = 'baton-gguf';

const quietLogger = {
  debug: () => {},
  log: () => {},
  warn: (...args: unknown[]) => console.warn('[wllama]', ...args),
  error: (...args: unknown[]) => console.error('[wllama]', ...args),
};

/** Cache Storage works on the page and in workers; it is missing on plain-http origins other than localhost. */
function cacheStorage(): CacheStorage | undefined {
  return (globalThis as { caches?: CacheStorage }).caches;
}

export async function wllamaCacheStatus(
  url: string,
  cacheName = DEFAULT_CACHE,
): Promise<{ cached: boolean; bytes?: number }> {
  const storage = cacheStorage();
  if (!storage) return { cached: false };
  const cache = await storage.open(cacheName);
  const hit = await cache.match(url);
  if (!hit) return { cached: false };
  const length = Number(hit.headers.get('content-length'));
  return Number.isFinite(length) && length > 0 ? { cached: true, bytes: length } : { cached: true };
}

export async function wllamaDeleteCache(url: string, cacheName = DEFAULT_CACHE): Promise<boolean> {
  const storage = cacheStorage();
  if (!storage) return false;
  const cache = await storage.open(cacheName);
  return cache.delete(url);
}

/** The file name of a model URL ("qwen2.5-0.5b-q4_k_m.gguf"), which is what the user chose. */
function modelName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

/** Downloads a GGUF with byte progress (or reads it from Cache Storage), and caches it for next time. */
async function fetchModel(
  url: string,
  cacheName: string,
  onProgress: (progress: LoadProgress) => void,
  signal: AbortSignal,
): Promise<Blob> {
  const storage = cacheStorage();
  const cache = storage ? await storage.open(cacheName).catch(() => undefined) : undefined;
  const hit = await cache?.match(url);
  if (hit) {
    const blob = await hit.blob();
    onProgress({
      phase: 'cache',
      fraction: 1,
      loadedBytes: blob.size,
      totalBytes: blob.size,
      text: 'Read from cache',
    });
    return blob;
  }
  const model = modelName(url);
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    // The CSP violation event is queued as its own task: let it arrive before the cause is named.
    await new Promise((resolve) => setTimeout(resolve, 0));
    throw downloadNetworkError(model, url, error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw downloadStatusError(model, url, response.status);
  }
  const total = Number(response.headers.get('content-length')) || undefined;
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  const started = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.byteLength;
    const seconds = (performance.now() - started) / 1000;
    const speed = seconds > 0 ? loaded / seconds : 0;
    // The figures go in their fields, once: the page words them (a second time-left in the text disagreed).
    onProgress({
      phase: 'download',
      fraction: total ? Math.min(1, loaded / total) : 0,
      loadedBytes: loaded,
      ...(total ? { totalBytes: total } : {}),
      ...(speed > 0 ? { bytesPerSecond: speed } : {}),
      ...(speed > 0 && total ? { secondsLeft: Math.max(0, (total - loaded) / speed) } : {}),
      elapsedSeconds: seconds,
      text: `Downloading ${model}`,
    });
  }
  const blob = new Blob(parts as BlobPart[]);
  if (cache) {
    await cache
      .put(url, new Response(blob, { headers: { 'content-length': String(blob.size) } }))
      .catch((error: unknown) => console.warn('Could not cache the model:', (error as Error).message));
  }
  return blob;
}

/** wllama (llama.cpp compiled to wasm) on the CPU: the engine for browsers without WebGPU. */
export function createWllamaEngine(options: WllamaEngineOptions = {}): ConductorEngine {
  const loadTimeoutMs = options.loadTimeoutMs ?? 120_000;
  const cacheName = options.cacheName ?? DEFAULT_CACHE;
  let wllama: Wllama | undefined;
  let current: WllamaModel | undefined;
  let generation: AbortController | undefined;

  async function unload(): Promise<void> {
    generation?.abort();
    const instance = wllama;
    wllama = undefined;
    current = undefined;
    await instance?.exit().catch(() => {});
  }

  return {
    kind: 'wllama',
    loaded: () => current,

    async load(model, onProgress) {
      if (model.engine !== 'wllama') throw new EngineError('InvalidModelError', 'Not a wllama model');
      if (sameModel(current, model)) return;
      await unload();
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(
            new EngineError(
              'EngineFailure',
              `The model did not load within ${Math.round(loadTimeoutMs / 1000)} s ` +
                "(a Content-Security-Policy without worker-src blob: or 'wasm-unsafe-eval' blocks it)",
            ),
          );
        }, loadTimeoutMs);
      });
      const instance = new Wllama({ default: wasmUrl }, { suppressNativeLog: true, logger: quietLogger });
      // Compat mode would fetch a slower build from a CDN: never fetch code from third parties.
      instance.setCompat(null);
      try {
        await Promise.race([
          (async () => {
            const blob = await fetchModel(model.url, cacheName, onProgress, controller.signal);
            onProgress({ phase: 'init', fraction: 1, text: 'Starting llama.cpp' });
            const threads = llamaThreads({
              crossOriginIsolated: globalThis.crossOriginIsolated === true,
              hardwareConcurrency: navigator.hardwareConcurrency,
              requested: model.threads,
            });
            await instance.loadModel([blob], {
              n_ctx: options.contextTokens ?? 4096,
              n_threads: threads,
              // CPU only: wllama could also try WebGPU, which is WebLLM's job here.
              n_gpu_layers: 0,
              n_parallel: 1,
              // llama.cpp's built-in template handling (ChatML, Qwen, Llama...): its Jinja path fails
              // to set up a JSON-schema constraint here ("Failed to initialize samplers: std::exception").
              jinja: false,
            });
          })(),
          timeout,
        ]);
      } catch (error) {
        await instance.exit().catch(() => {});
        if (error instanceof EngineError) throw error;
        throw new EngineError(
          'EngineFailure',
          `llama.cpp could not load the model: ${(error as Error).message}`,
        );
      } finally {
        clearTimeout(timer);
      }
      wllama = instance;
      current = model;
    },

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const instance = wllama;
      if (!instance) throw new ConductorError('ModelNotLoaded', 'No model is loaded');
      const controller = new AbortController();
      generation = controller;
      const onAbort = () => controller.abort();
      if (request.signal.aborted) controller.abort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      let text = '';
      let finishReason: GenerateResult['finishReason'] = 'stop';
      let last: ChatCompletionChunk | undefined;
      let pieces = 0;
      const started = performance.now();
      try {
        await instance.createChatCompletion({
          messages: request.messages,
          stream: true,
          abortSignal: controller.signal,
          max_tokens: request.maxTokens,
          temperature: request.temperature,
          // llama.cpp keeps the KV cache of the last prompt and prefills only what follows the longest
          // prefix the new prompt shares with it: the planner's system prompt, few-shots and pool come
          // first and are the same for every question to a pool, so a second question prefills only itself.
          cache_prompt: true,
          ...(request.jsonSchema
            ? {
                response_format: {
                  type: 'json_schema',
                  json_schema: { name: 'plan', schema: request.jsonSchema },
                },
              }
            : {}),
          onData: (chunk: ChatCompletionChunk) => {
            last = chunk;
            const choice = chunk.choices[0];
            const piece = choice?.delta.content;
            if (piece) {
              text += piece;
              pieces++;
              request.onToken(piece);
            }
            if (choice?.finish_reason === 'length') finishReason = 'length';
          },
        });
      } catch (error) {
        if ((error as Error).name === 'AbortError' || controller.signal.aborted) {
          finishReason = 'abort';
        } else {
          throw new EngineError('EngineFailure', `llama.cpp failed: ${(error as Error).message}`);
        }
      } finally {
        request.signal.removeEventListener('abort', onAbort);
        if (generation === controller) generation = undefined;
      }
      const timings = (last as (ChatCompletionChunk & { timings?: Timings }) | undefined)?.timings;
      const usage = last?.usage;
      const result: GenerateResult = {
        text,
        promptTokens: usage?.prompt_tokens ?? (timings ? timings.prompt_n + timings.cache_n : 0),
        completionTokens: usage?.completion_tokens ?? timings?.predicted_n ?? pieces,
        finishReason,
      };
      if (timings && Number.isFinite(timings.cache_n)) result.cachedPromptTokens = timings.cache_n;
      if (timings?.prompt_per_second) result.prefillTokensPerSec = timings.prompt_per_second;
      if (timings?.predicted_per_second) result.decodeTokensPerSec = timings.predicted_per_second;
      else if (pieces > 1) result.decodeTokensPerSec = pieces / ((performance.now() - started) / 1000);
      return result;
    },

    interrupt() {
      generation?.abort();
    },

    unload,
  };
}

interface Timings {
  /** Prompt tokens reused from the kept KV cache. */
  cache_n: number;
  prompt_n: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_per_second: number;
}
