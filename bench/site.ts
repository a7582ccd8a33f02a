// A production build of the app served on 127.0.0.1, for benchmarks that measure the app in Chromium.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

function build(outDir: string, mode: 'production' | 'test'): Promise<void> {
  return new Promise((done, fail) => {
    const args = ['vite', 'build', '--logLevel', 'error', '--outDir', outDir, '--mode', mode];
    const child = spawn('npx', args, {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? done() : fail(new Error(`vite build failed: ${stderr.slice(-500)}`)),
    );
  });
}

/**
 * Builds the app into `outDir` and serves it (cross-origin isolated, like `vite preview`). `test` mode
 * also builds the harness pages of test/pages/ (under /test/pages/), from the same modules.
 */
export async function serveBuiltApp(
  outDir: string,
  mode: 'production' | 'test' = 'production',
): Promise<{ url: string; close(): Promise<void> }> {
  await build(outDir, mode);
  const dir = resolve(ROOT, outDir);
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      response.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
