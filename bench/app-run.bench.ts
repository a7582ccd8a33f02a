// P13 (issue 12): what the app adds to a run. A 5-step plan with two parallel branches (300 tokens per
// step, fixed provider latencies) run as the app runs a reviewed plan, against the same DAG of bare
// `fetch` calls, both from the same page of the built app (test mode, for its harness page) in Chromium,
// in rounds alternating the order. One measurement gives two figures: the wall time ratio (P13) and the
// ratio of the page's main-thread busy time (main-thread-ratio), each side's median.
import { chromium } from '@playwright/test';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { startProvider } from '../test/provider/server.ts';
import { alternate, loadNote, type Paired, pairedNote, type Side } from './paired.ts';
import { serveBuiltApp } from './site.ts';
import { median, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const GOAL = 1.01;
/** The page's main thread busy during the app's run ÷ during bare fetch's. */
const MAIN_THREAD_GOAL = 1.5;
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

interface Measured extends Paired {
  busyMs: Record<Side, number[]>;
}

async function measure(): Promise<Measured> {
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
    const side = async (which: Side) => {
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
    const busyMs: Record<Side, number[]> = { app: [], bare: [] };
    const paired = await alternate(ROUNDS, async (which) => {
      const timed = await side(which);
      if (timed.phase !== 'done')
        throw new Error(`P13 ${which} run ended ${timed.phase}: ${timed.error ?? ''}`);
      busyMs[which].push(timed.busyMs);
      return timed.ms;
    });
    return { ...paired, busyMs };
  } finally {
    await browser.close();
    await site.close();
    await provider.close();
  }
}

// Both figures come from one measurement: whichever of the two runs first measures, the other reads it.
let measured: Promise<Measured> | undefined;
const measurement = () => {
  measured ??= measure();
  return measured;
};

const SETUP = `${TOKENS} tokens/step, first token ${FIRST_TOKEN_MS} ms, ${PER_TOKEN_MS} ms/token`;

async function p13(): Promise<BenchResult> {
  const m = await measurement();
  return {
    value: Number(median(m.ratios).toFixed(3)),
    goal: GOAL,
    unit: '× bare fetch',
    better: 'lower',
    notes: pairedNote(
      m,
      `app ${round(median(m.app))} ms, bare fetch ${round(median(m.bare))} ms`,
      `main thread busy: app ${round(median(m.busyMs.app))} ms, bare ${round(median(m.busyMs.bare))} ms`,
      SETUP,
    ),
  };
}

async function mainThread(): Promise<BenchResult> {
  const m = await measurement();
  const app = median(m.busyMs.app);
  const bare = median(m.busyMs.bare);
  return {
    value: Number((app / bare).toFixed(2)),
    goal: MAIN_THREAD_GOAL,
    unit: '× bare fetch',
    better: 'lower',
    notes:
      `the page's main thread busy (CDP Performance.getMetrics TaskDuration) during the P13 runs, ` +
      `median of ${ROUNDS} rounds: app ${round(app)} ms, bare fetch ${round(bare)} ms; ${SETUP}; ${loadNote(m.load)}`,
  };
}

export const benchmarks: Benchmark[] = [
  { id: 'p13-app-run', title: 'P13: a 5-step plan run in the app ÷ the same DAG of bare fetch', run: p13 },
  {
    id: 'main-thread-ratio',
    title: "The page's main-thread busy time over the P13 run ÷ the same for bare fetch",
    run: mainThread,
  },
];
