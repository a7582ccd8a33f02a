/**
 * Names of the engines' build files, shared by the build (vite.config.ts), the service worker's runtime
 * cache and the tests. The engines are not part of the precached app shell: a first visit would otherwise
 * download both (~12 MB) before the user has chosen one. Each is cached the first time it is used.
 */

/** The folder of every engine file, under `assets/` (a folder of its own: no app chunk can share its name). */
export const ENGINE_DIR = 'engine';

/** The service worker's cache that keeps an engine's files once they were fetched. */
export const ENGINE_CACHE = 'baton-engines';

/** Same-origin URL paths of engine files (the service worker matches request URLs against it). */
export const ENGINE_ASSET = /\/assets\/engine\/[^/]+$/;

interface ChunkInfo {
  moduleIds: readonly string[];
}

/**
 * Worker chunk names: web-llm's bundle (its `lib/index.js`, ~6 MB) and the local server engine (the openai
 * SDK it streams with, ~150 KB) go to the engine folder; everything else keeps Vite's default name. Our
 * small glue that imports web-llm stays in the shell, so that offline, with web-llm never fetched, loading a
 * WebLLM model still fails with the engine's own typed error.
 */
export function engineChunkName(chunk: ChunkInfo): string {
  if (chunk.moduleIds.some((id) => id.includes('/@mlc-ai/web-llm/')))
    return `assets/${ENGINE_DIR}/webllm-[hash].js`;
  if (chunk.moduleIds.some((id) => id.endsWith('/workers/engines/local-server.ts')))
    return `assets/${ENGINE_DIR}/local-server-[hash].js`;
  return 'assets/[name]-[hash].js';
}

/** Worker asset names: wasm (wllama's ~10 MB runtime) is engine code; other assets keep the default name. */
export function engineAssetName(asset: { names: readonly string[] }): string {
  return asset.names.some((name) => name.endsWith('.wasm'))
    ? `assets/${ENGINE_DIR}/[name]-[hash][extname]`
    : 'assets/[name]-[hash][extname]';
}
