// P13 (issue 12): what the app adds to a run. A 5-step plan with two parallel branches (300 tokens per
// step, fixed provider latencies) run as the app runs a reviewed plan, against the same DAG of bare
// `fetch` calls, both from the same page of the built app (test mode, for its harness page) in Chromium,
// in rounds alternating the order.
import { chromium } from '@playwright/test';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { startProvider } from '../test/provider/server.ts';
import { serveBuiltApp } from './site.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const GOAL = 1.01;
// Ten: with the provider's tokens on a fixed schedule, what still varies is the page itself.
const ROUNDS = 10;
const TOKENS = 300;
const FIRST_TOKEN_MS = 150;
const PER_TOKEN_MS = 4;
const MODEL = 'p13';

interface Timed {
  phase: string;
  ms: number;
  error?: string;
}

declare global {
  var __run: {
    app(baseURL: string, model: string): Promise<Timed>;
    bare(baseURL: string, model: string): Promise<Timed>;
  };
}

async function p13(): Promise<BenchResult> {
  const words = Array.from({ length: TOKENS }, (_, i) => `w${i}`).join(' ');
  const provider = await startProvider({
    models: [
      {
        id: MODEL,
        behaviour: { kind: 'fixed', text: words },
        latency: { firstTokenMs: FIRST_TOKEN_MS, perTokenMs: PER_TOKEN_MS },
      },
    ],
  });
  const site = await serveBuiltApp('dist-bench-p13', { mode: 'test' });
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    // Main-thread busy time (CDP TaskDuration) beside wall time: on a loaded machine wall times wander,
    // what the page itself spends on each side does much less.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const busy = async () =>
      (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
    await page.goto(`${site.url}/test/pages/run.html`);
    await page.waitForFunction(() => globalThis.__run !== undefined);
    const side = async (which: 'app' | 'bare') => {
      const before = await busy();
      const timed = await page.evaluate(({ which, base, model }) => globalThis.__run[which](base, model), {
        which,
        base: provider.baseURL,
        model: MODEL,
      });
      return { ...timed, busyMs: ((await busy()) - before) * 1000 };
    };
    // One unmeasured round of each: modules loaded, databases opened, connections warm.
    for (const which of ['app', 'bare'] as const) {
      const warm = await side(which);
      if (warm.phase !== 'done') throw new Error(`P13 ${which} run ended ${warm.phase}: ${warm.error ?? ''}`);
    }
    const app: number[] = [];
    const bare: number[] = [];
    const busyMs: Record<'app' | 'bare', number[]> = { app: [], bare: [] };
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['app', 'bare'] as const) : (['bare', 'app'] as const);
      const times: Record<string, number> = {};
      for (const which of order) {
        const timed = await side(which);
        if (timed.phase !== 'done')
          throw new Error(`P13 ${which} run ended ${timed.phase}: ${timed.error ?? ''}`);
        times[which] = timed.ms;
        busyMs[which].push(timed.busyMs);
      }
      app.push(times.app!);
      bare.push(times.bare!);
      ratios.push(times.app! / times.bare!);
    }
    return {
      value: Number(median(ratios).toFixed(3)),
      goal: GOAL,
      unit: '× bare fetch',
      better: 'lower',
      notes:
        `median of ${ROUNDS} alternating rounds (p90 ${quantile(ratios, 0.9).toFixed(3)}); ` +
        `app ${round(median(app))} ms, bare fetch ${round(median(bare))} ms; ` +
        `main thread busy: app ${round(median(busyMs.app))} ms, bare ${round(median(busyMs.bare))} ms; ` +
        `${TOKENS} tokens/step, first token ${FIRST_TOKEN_MS} ms, ${PER_TOKEN_MS} ms/token`,
    };
  } finally {
    await browser.close();
    await site.close();
    await provider.close();
  }
}

export const benchmarks: Benchmark[] = [
  { id: 'p13-app-run', title: 'P13: a 5-step plan run in the app ÷ the same DAG of bare fetch', run: p13 },
];
