/**
 * Where the build puts the o200k tokenizer (src/shared/token-estimate.ts), shared by the build and the
 * service worker's runtime cache. It is ~1 MB gzip and needed only when a provider sends no usage, so it
 * is not in the precached shell (a first visit would cost four times as much); it is cached the first time
 * it is loaded, and works offline from then on. Before that, offline, estimates fall back to characters / 4
 * and say so.
 */

/** The tokenizer's folder under `assets/` (its own, so no other chunk matches the cache's pattern). */
export const TOKENIZER_DIR = 'tokenizer';

/** The service worker's cache that keeps the tokenizer once fetched. */
export const TOKENIZER_CACHE = 'baton-tokenizer';

/** Same-origin URL paths of the tokenizer's files. */
export const TOKENIZER_ASSET = /\/assets\/tokenizer\/[^/]+$/;

/** Page chunk names: gpt-tokenizer's rank table goes to the tokenizer folder; the rest keeps Vite's default. */
export function pageChunkName(chunk: { moduleIds: readonly string[] }): string {
  if (chunk.moduleIds.some((id) => id.includes('/gpt-tokenizer/')))
    return `assets/${TOKENIZER_DIR}/[name]-[hash].js`;
  return 'assets/[name]-[hash].js';
}
