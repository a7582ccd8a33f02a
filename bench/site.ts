// The app built by `vite build` and served on 127.0.0.1, for benchmarks that measure it in Chromium.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { preview } from 'vite';

const ROOT = resolve(import.meta.dirname, '..');

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

export interface Site {
  url: string;
  close(): Promise<void>;
}

/** Builds the app into `outDir` (below the project); mode `test` also builds the test pages. */
export function buildApp(outDir: string, options: { mode?: string } = {}): Promise<void> {
  const mode = options.mode ? ['--mode', options.mode] : [];
  return new Promise((done, fail) => {
    const child = spawn('npx', ['vite', 'build', ...mode, '--logLevel', 'error', '--outDir', outDir], {
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

/** Serves a build folder, cross-origin isolated like `vite preview` (wllama needs threads). */
export async function serveFolder(dir: string): Promise<Site> {
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
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Builds the app into `outDir` and serves it; closing the site also removes the build. */
export async function serveBuiltApp(outDir: string, options: { mode?: string } = {}): Promise<Site> {
  await buildApp(outDir, options);
  const dir = resolve(ROOT, outDir);
  const site = await serveFolder(dir);
  return {
    url: site.url,
    close: async () => {
      await site.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Builds the app into `outDir` and serves it with `vite preview`, which sends the app's own headers (its
 * CSP among them): for pages whose measurement depends on them. Closing the site also removes the build.
 */
export async function previewBuiltApp(outDir: string, options: { mode?: string } = {}): Promise<Site> {
  await buildApp(outDir, options);
  const server = await preview({
    root: ROOT,
    ...(options.mode ? { mode: options.mode } : {}),
    logLevel: 'error',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const close = async () => {
    await server.close();
    await rm(resolve(ROOT, outDir), { recursive: true, force: true });
  };
  const url = server.resolvedUrls?.local[0];
  if (!url) {
    await close();
    throw new Error('vite preview gave no URL');
  }
  return { url: url.replace(/\/$/, ''), close };
}
