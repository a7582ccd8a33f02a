/**
 * Where the build puts the PDF reader's thread (workers/pdf-text.worker.ts: all of pdf.js, ~1.6 MB),
 * shared by the build and the service worker's runtime cache. Like the tokenizer it is not in the
 * precached shell (most visits attach no PDF); it is cached the first time a PDF is attached, and reads
 * PDFs offline from then on.
 */

/** The reader's folder under `assets/` (its own, so no other file matches the cache's pattern). */
export const PDF_DIR = 'pdf';

/** The service worker's cache that keeps the reader once fetched. */
export const PDF_CACHE = 'baton-pdf';

/** Same-origin URL paths of the reader's files. */
export const PDF_ASSET = /\/assets\/pdf\/[^/]+$/;

/** Worker entry names: the PDF reader's thread goes to its folder; other threads keep Vite's default. */
export function workerEntryName(chunk: { name: string }): string {
  if (chunk.name.startsWith('pdf-text.worker')) return `assets/${PDF_DIR}/[name]-[hash].js`;
  return 'assets/[name]-[hash].js';
}
