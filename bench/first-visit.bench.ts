// P14 (issue 10): what a first visit costs in bytes before the user does anything, service worker on.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { chromium, type Request } from '@playwright/test';
import { preview } from 'vite';
import { ENGINE_ASSET } from '../build/engine-assets.ts';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { buildApp } from './site.ts';
import { round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const ROOT = resolve(import.meta.dirname, '..');
const GOAL_MB = 1.5;

interface Transfer {
  url: string;
  bytes: number;
  fromServiceWorker: boolean;
}

/** Waits until no request has been in flight for `quietMs` (the service worker's install included). */
async function settle(inFlight: () => number, quietMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (inFlight() > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
  }
  throw new Error(`requests were still in flight after ${maxMs / 1000} s`);
}

/**
 * P14: bytes on the wire (encoded bodies, Playwright's reading of CDP `Network.loadingFinished`
 * `encodedDataLength` minus headers) for a first visit to the production build served by `vite preview`
 * (compression on, as in production): the page's own loads plus the service worker's install (precache),
 * in a fresh profile, until the worker is active and the network is quiet. Nothing is clicked.
 */
async function p14(): Promise<BenchResult> {
  const outDir = 'dist-bench-p14';
  await buildApp(outDir);
  const server = await preview({
    root: ROOT,
    logLevel: 'error',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('vite preview gave no URL');
    const context = await browser.newContext();
    const transfers: Transfer[] = [];
    let pending = 0;
    context.on('request', () => {
      pending++;
    });
    const done = async (request: Request, failed: boolean) => {
      try {
        const response = failed ? null : await request.response();
        const sizes = failed ? undefined : await request.sizes();
        transfers.push({
          url: request.url(),
          bytes: sizes?.responseBodySize ?? 0,
          fromServiceWorker: response?.fromServiceWorker() ?? false,
        });
      } finally {
        pending--;
      }
    };
    context.on('requestfinished', (request) => void done(request, false));
    context.on('requestfailed', (request) => void done(request, true));
    const page = await context.newPage();
    await page.goto(url);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await settle(() => pending, 1000, 120_000);
    // A response the service worker answered from its cache costs nothing on the wire.
    const wire = transfers.filter((t) => !t.fromServiceWorker);
    const total = wire.reduce((sum, t) => sum + t.bytes, 0);
    const largest = [...wire]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3)
      .map((t) => `${new URL(t.url).pathname.split('/').pop()} ${round(t.bytes / 1024)} KB`);
    const engines = wire.filter((t) => {
      const path = new URL(t.url).pathname;
      return path.endsWith('.wasm') || ENGINE_ASSET.test(path);
    });
    return {
      value: round(total / 1e6),
      goal: GOAL_MB,
      unit: 'MB',
      better: 'lower',
      notes:
        `${wire.length} requests; largest: ${largest.join(', ')}` +
        (engines.length
          ? `; WARNING: ${engines.length} engine file(s) fetched`
          : '; no engine files fetched'),
    };
  } finally {
    await browser.close();
    await server.close();
    await rm(resolve(ROOT, outDir), { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  { id: 'p14-first-visit', title: 'P14: bytes a first visit transfers before any action (SW on)', run: p14 },
];
