import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { cspPlugin, parseConnectSrc } from './src/security/csp.ts';

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

export default defineConfig(({ mode }) => ({
  build: {
    target: 'es2022',
    outDir: mode === 'test' ? 'dist-test' : 'dist',
    emptyOutDir: true,
    rollupOptions: { input: inputs(mode) },
  },
  // Content-Security-Policy from the provider catalog; BATON_CONNECT_SRC adds custom hosts (README).
  plugins: [cspPlugin({ extraConnectSrc: parseConnectSrc(process.env.BATON_CONNECT_SRC) })],
  worker: { format: 'es' },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
}));
