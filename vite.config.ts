import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { cspPlugin, LOCAL_HOSTS, parseConnectSrc, parseSandboxOrigin } from './src/security/csp.ts';

// Cross-origin isolation lets wllama use threads (SharedArrayBuffer); without it n_threads falls back to 1.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
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

// The origin that serves the code-runner sandbox when it is not the app's own (README: "The code sandbox").
const sandboxOrigin = parseSandboxOrigin(process.env.BATON_SANDBOX_ORIGIN);

export default defineConfig(({ mode }) => ({
  define: { 'import.meta.env.BATON_SANDBOX_ORIGIN': JSON.stringify(sandboxOrigin ?? '') },
  build: {
    target: 'es2022',
    outDir: mode === 'test' ? 'dist-test' : 'dist',
    emptyOutDir: true,
    rollupOptions: { input: inputs(mode) },
  },
  // Content-Security-Policy from the provider catalog; BATON_CONNECT_SRC adds custom hosts (README).
  plugins: [
    cspPlugin({
      extraConnectSrc: parseConnectSrc(process.env.BATON_CONNECT_SRC),
      // Test builds may frame the sandbox from another local site (localhost beside 127.0.0.1), as a
      // deployment frames it from its own origin.
      frameSrc: [...(sandboxOrigin ? [sandboxOrigin] : []), ...(mode === 'test' ? LOCAL_HOSTS : [])],
    }),
    // Installable app whose shell (HTML, JS, CSS, wasm of the CPU engine) is precached by a service worker,
    // so it loads offline after the first visit. Model weights are not precached: the engines cache them.
    // The page registers the worker itself (src/app/pwa.ts): no inline script under the CSP.
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
        globPatterns: ['**/*.{js,css,html,svg,png,wasm,webmanifest}'],
        // Harness pages of test builds and the code sandbox are not part of the app shell.
        globIgnores: ['test/**', 'sandbox/**'],
        // The web-llm chunk (only loaded in the worker) is ~6 MB; the shell must include it to plan offline.
        maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/test\//, /^\/sandbox\//],
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  worker: { format: 'es' },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
}));
