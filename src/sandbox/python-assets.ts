/**
 * Where Pyodide's files live in the build, shared by the build (vite.config.ts copies them from the npm
 * package), the service worker's runtime cache and the page that hands them to the sandbox
 * (src/sandbox/code-runner.ts). Not in the precached app shell: ~13 MB that only a Python task needs. Each is
 * cached the first time a Python task is scored, so Python scoring keeps working offline afterwards.
 */

/** The folder under `assets/`; the version below it, so a cached file is never stale after an update. */
export const PYODIDE_DIR = 'pyodide';

/** The service worker's cache that keeps Pyodide's files once they were fetched. */
export const PYODIDE_CACHE = 'baton-pyodide';

/** Same-origin URL paths of Pyodide's files (the service worker matches request URLs against it). */
export const PYODIDE_ASSET = /\/assets\/pyodide\/[^/]+\/[^/]+$/;

/**
 * The files the sandbox needs to start Pyodide: the loader, the Emscripten module, the interpreter's wasm,
 * the standard library and the package lock (read for its contents; no package is ever installed).
 */
export const PYODIDE_FILES = [
  'pyodide.mjs',
  'pyodide.asm.mjs',
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
] as const;

export type PyodideFiles = Record<(typeof PYODIDE_FILES)[number], ArrayBuffer>;

/** The build path of one version's files, below the site's base. */
export const pyodidePath = (version: string) => `assets/${PYODIDE_DIR}/${version}`;
