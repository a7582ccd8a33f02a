import type { CacheStatus, ModelRef } from '../src/shared/conductor-api.ts';
import type { ConductorEngine } from './engines/engine.ts';

/**
 * The one place that imports the WebLLM engine, lazily, so the thread's first chunk stays small and
 * web-llm's ~2 MB bundle loads only when a WebLLM model is used.
 */
export interface WebLlmModule {
  createWebLlmEngine(): ConductorEngine;
  webLlmCacheStatus(model: ModelRef): Promise<CacheStatus>;
  webLlmDeleteCache(model: ModelRef): Promise<boolean>;
}

export async function loadWebLlm(): Promise<WebLlmModule> {
  const module = await import('./engines/webllm.ts');
  return {
    createWebLlmEngine: () => module.createWebLlmEngine(),
    webLlmCacheStatus: (model) => module.webLlmCacheStatus(model),
    webLlmDeleteCache: (model) => module.webLlmDeleteCache(model),
  };
}
