import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { cspPlugin } from './build/csp-plugin.ts';
import {
  ENGINE_ASSET,
  ENGINE_CACHE,
  ENGINE_DIR,
  engineAssetName,
  engineChunkName,
} from './build/engine-assets.ts';
import { pageChunkName, TOKENIZER_ASSET, TOKENIZER_CACHE, TOKENIZER_DIR } from './build/tokenizer-assets.ts';
import { PDF_ASSET, PDF_CACHE, PDF_DIR, workerEntryName } from './src/app/pdf-assets.ts';
import {
  PYODIDE_ASSET,
  PYODIDE_CACHE,
  PYODIDE_DIR,
  PYODIDE_FILES,
  pyodidePath,
} from './src/sandbox/python-assets.ts';
import { cspDirectives, LOCAL_HOSTS, parseConnectSrc, parseSandboxOrigin } from './src/security/csp.ts';

// Cross-origin isolation lets wllama use threads (SharedArrayBuffer); without it n_threads falls back to 1.
// COEP `credentialless` rather than `require-corp`: isolated all the same (Chromium 96+, Firefox 119+), but a
// no-cors request gets an answer from a host without a Cross-Origin-Resource-Policy header, so the
// connection test can tell a server that is running without CORS from a port where nothing listens.
// Safari does not know `credentialless` and is then not isolated: the CPU engine runs on one thread there.
const COEP = 'credentialless';
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': COEP,
  // The code-runner sandbox (public/sandbox/) is an opaque origin: under COEP it may load our script only
  // when the response opts in to cross-origin use. Our assets are public, so nothing is lost.
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

// Test builds (`vite build --mode test`) also emit the harness pages under test/pages/, which browser
// tests use to drive one module at a time; production builds contain only the app.
function inputs(mode: string): Record<string, string> {
  const entries: Record<string, string> = { main: resolve(import.meta.dirname, 'index.html') };
  if (mode === 'test') {
    const dir = resolve(import.meta.dirname, 'test/pages');
    for (const file of readdirSync(dir)) {
      if (file.endsWith('.html')) entries[`test-${file.slice(0, -5)}`] = resolve(dir, file);
    }
  }
  return entries;
}

// Pyodide (Python for the code sandbox) is copied from its npm package into the build as it is: its loader finds
// its files by name, so they keep their names, in a folder named after the version instead of a hash.
const PYODIDE_ROOT = resolve(import.meta.dirname, 'node_modules/pyodide');
const PYODIDE_VERSION: string = JSON.parse(
  readFileSync(resolve(PYODIDE_ROOT, 'package.json'), 'utf8'),
).version;

function pyodideAssets(): Plugin {
  const base = pyodidePath(PYODIDE_VERSION);
  return {
    name: 'baton-pyodide-assets',
    generateBundle() {
      for (const name of PYODIDE_FILES)
        this.emitFile({
          type: 'asset',
          fileName: `${base}/${name}`,
          source: readFileSync(resolve(PYODIDE_ROOT, name)),
        });
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const name = PYODIDE_FILES.find((n) => req.url === `/${base}/${n}`);
        if (!name) return next();
        res.setHeader(
          'Content-Type',
          name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream',
        );
        res.end(readFileSync(resolve(PYODIDE_ROOT, name)));
      });
    },
  };
}

// The origin that serves the code-runner sandbox when it is not the app's own (README: "The code sandbox").
const sandboxOrigin = parseSandboxOrigin(process.env.BATON_SANDBOX_ORIGIN);
// Custom hosts the page may call (README: "Allowing a custom host").
const extraConnectSrc = parseConnectSrc(process.env.BATON_CONNECT_SRC);

export default defineConfig(({ mode }) => ({
  define: {
    // The pool form reads it to say when a base URL needs BATON_CONNECT_SRC (src/security/connect-src.ts).
    'import.meta.env.BATON_CONNECT_SRC': JSON.stringify(cspDirectives({ extraConnectSrc })['connect-src']),
    'import.meta.env.BATON_SANDBOX_ORIGIN': JSON.stringify(sandboxOrigin ?? ''),
    // The connection test reads it: under `require-corp` a failed no-cors probe proves nothing.
    'import.meta.env.BATON_COEP': JSON.stringify(COEP),
    'import.meta.env.BATON_PYODIDE_PATH': JSON.stringify(pyodidePath(PYODIDE_VERSION)),
  },
  build: {
    target: 'es2022',
    outDir: mode === 'test' ? 'dist-test' : 'dist',
    emptyOutDir: true,
    rollupOptions: { input: inputs(mode), output: { chunkFileNames: pageChunkName } },
  },
  // Content-Security-Policy from the provider catalog; BATON_CONNECT_SRC adds custom hosts (README).
  plugins: [
    pyodideAssets(),
    cspPlugin({
      extraConnectSrc,
      // Test builds may frame the sandbox from another local site (localhost beside 127.0.0.1), as a
      // deployment frames it from its own origin.
      frameSrc: [...(sandboxOrigin ? [sandboxOrigin] : []), ...(mode === 'test' ? LOCAL_HOSTS : [])],
    }),
    // Installable app whose shell (HTML, JS, CSS, icons) is precached by a service worker, so it loads offline
    // after the first visit. The engines are not in the shell: a first visit would otherwise download both
    // (~12 MB) before the user has chosen one. An engine's files are cached the first time they are used
    // (runtime caching below), so a chosen engine keeps working offline. Model weights are cached by the
    // engines themselves. The page registers the worker itself (src/app/pwa.ts): no inline script under the CSP.
    VitePWA({
      injectRegister: false,
      registerType: 'autoUpdate',
      manifest: {
        name: 'Baton',
        short_name: 'Baton',
        description: 'An on-device conductor that plans workflows for your own pool of cloud models.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#131416',
        theme_color: '#1f2a44',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        // Harness pages of test builds, the code sandbox and the engines are not part of the app shell.
        globIgnores: [
          'test/**',
          'sandbox/**',
          `assets/${ENGINE_DIR}/**`,
          `assets/${TOKENIZER_DIR}/**`,
          `assets/${PDF_DIR}/**`,
          `assets/${PYODIDE_DIR}/**`,
        ],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/test\//, /^\/sandbox\//],
        cleanupOutdatedCaches: true,
        // Take control of the page of a first visit as soon as the worker is active, so an engine chosen on
        // that visit is fetched through it and cached (src/app/pwa.ts waits for this before a worker starts).
        clientsClaim: true,
        runtimeCaching: [
          {
            // Content-hashed, so a cached copy is never stale; an update brings new names (old ones expire).
            urlPattern: ENGINE_ASSET,
            handler: 'CacheFirst',
            options: {
              cacheName: ENGINE_CACHE,
              expiration: { maxEntries: 12 },
              cacheableResponse: { statuses: [200] },
            },
          },
          {
            // The o200k tokenizer (build/tokenizer-assets.ts): cached when a provider first sent no usage.
            urlPattern: TOKENIZER_ASSET,
            handler: 'CacheFirst',
            options: {
              cacheName: TOKENIZER_CACHE,
              expiration: { maxEntries: 4 },
              cacheableResponse: { statuses: [200] },
            },
          },
          {
            // The PDF reader's thread (src/app/pdf-assets.ts): cached when a PDF is first attached.
            urlPattern: PDF_ASSET,
            handler: 'CacheFirst',
            options: {
              cacheName: PDF_CACHE,
              expiration: { maxEntries: 4 },
              cacheableResponse: { statuses: [200] },
            },
          },
          {
            // Pyodide (src/sandbox/python-assets.ts): cached when a Python task is first scored.
            urlPattern: PYODIDE_ASSET,
            handler: 'CacheFirst',
            options: {
              cacheName: PYODIDE_CACHE,
              expiration: { maxEntries: 2 * PYODIDE_FILES.length },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
      },
    }),
  ],
  worker: {
    format: 'es',
    // Engine files go to a folder the service worker recognises (ENGINE_ASSET): web-llm's chunk and wllama's
    // wasm.
    rolldownOptions: {
      output: {
        chunkFileNames: engineChunkName,
        assetFileNames: engineAssetName,
        entryFileNames: workerEntryName,
      },
    },
  },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
}));
