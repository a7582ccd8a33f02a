import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProvider } from '../test/provider/server.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark } from './types.ts';

const RUNS = 50;
const WARMUP = 5;
const body = JSON.stringify({
  model: 'echo',
  messages: [{ role: 'user', content: 'one two three four five six seven eight' }],
  stream: true,
  stream_options: { include_usage: true },
});

/** Milliseconds from sending the request to the first byte of the body, then drains the stream. */
async function firstByte(url: string): Promise<number> {
  const start = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const elapsed = performance.now() - start;
  if (first.done || first.value.length === 0) throw new Error('empty stream');
  while (!(await reader.read()).done) {}
  return elapsed;
}

/**
 * The provider against a bare node:http server that answers one SSE line at once, measured alternately
 * in one run so both see the same machine load (this machine is shared and noisy).
 */
async function measure(): Promise<{ provider: number[]; bare: number[] }> {
  const provider = await startProvider();
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1/chat/completions`;
  const providerUrl = `${provider.baseURL}/chat/completions`;
  try {
    const out = { provider: [] as number[], bare: [] as number[] };
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Alternate which goes first so neither always runs on a warmer connection pool.
      const order = i % 2 === 0 ? (['provider', 'bare'] as const) : (['bare', 'provider'] as const);
      for (const which of order) {
        const t = await firstByte(which === 'provider' ? providerUrl : bareUrl);
        if (i >= WARMUP) out[which].push(t);
      }
    }
    return out;
  } finally {
    await provider.close();
    bare.closeAllConnections();
    await new Promise<void>((resolve) => bare.close(() => resolve()));
  }
}

let measured: Promise<{ provider: number[]; bare: number[] }> | undefined;
const measureOnce = () => {
  measured ??= measure();
  return measured;
};

/** The test provider's own overhead, so later benchmarks that go through it know what it adds. */
export const benchmarks: Benchmark[] = [
  {
    id: 'provider-ttfb',
    title: 'Test provider: time to first byte, zero-latency streaming model, loopback',
    async run() {
      const { provider, bare } = await measureOnce();
      return {
        value: round(median(provider)),
        goal: 5,
        unit: 'ms',
        better: 'lower',
        notes: `median of ${RUNS} after ${WARMUP} warm-ups; p90 ${round(quantile(provider, 0.9))} ms; bare node:http server in the same run: median ${round(median(bare))} ms`,
      };
    },
  },
  {
    id: 'provider-ttfb-ratio',
    title: 'Test provider TTFB / bare node:http server TTFB, same run (load-independent overhead)',
    async run() {
      const { provider, bare } = await measureOnce();
      return {
        value: round(median(provider) / median(bare)),
        goal: 1.5,
        unit: '×',
        better: 'lower',
        notes: `medians ${round(median(provider))} ms / ${round(median(bare))} ms over ${RUNS} alternating pairs`,
      };
    },
  },
];
