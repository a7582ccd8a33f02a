// P19: what a `run` step costs next to the bench's own scoring of the same code. P20: what write → run →
// fix gains over write alone, with scripted workers whose code has seeded bugs. Both in one page of the
// test build (test/pages/run-fix.html): the real executor, run step and sandbox with Pyodide from the build.
import { type Browser, chromium, type Page } from '@playwright/test';
import { comparePaired } from '../src/evaluation/stats.ts';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { RUN_FIX_TASKS } from './run-fix-tasks.ts';
import { previewBuiltApp } from './site.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const RUNS = 20;
const WARMUP = 3;

/** The harness page in a fresh build, for `use`; everything is closed afterwards. */
async function withHarness<T>(outDir: string, use: (page: Page) => Promise<T>): Promise<T> {
  const site = await previewBuiltApp(outDir, { mode: 'test' });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
    const page = await browser.newPage();
    await page.goto(`${site.url}/test/pages/run-fix.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    return await use(page);
  } finally {
    await browser?.close();
    await site.close();
  }
}

/**
 * P19: the median time of a run step once Pyodide is warm (the correct code and the question's examples,
 * from the step's context to its formatted answer) ÷ the median time the bench takes to score the same code
 * with its hidden tests, measured alternately in one page. Both go through the same queue, frame and
 * interpreter; what the run step adds is reading its context and writing its answer.
 */
async function p19(): Promise<BenchResult> {
  const item = RUN_FIX_TASKS[0]!;
  const times = await withHarness('dist-bench-p19', (page) =>
    page.evaluate(
      ([item, runs, warmup]) =>
        (
          globalThis as unknown as {
            harness: {
              runStepTimes(i: unknown, r: number, w: number): Promise<{ step: number[]; score: number[] }>;
            };
          }
        ).harness.runStepTimes(item, runs, warmup),
      [item, RUNS, WARMUP] as const,
    ),
  );
  const step = median(times.step);
  const score = median(times.score);
  return {
    value: round(step / score),
    goal: 1.5,
    unit: '× scoring',
    better: 'lower',
    notes:
      `run step median ${round(step)} ms (p90 ${round(quantile(times.step, 0.9))}), scoring median ` +
      `${round(score)} ms (p90 ${round(quantile(times.score, 0.9))}), ${RUNS} alternating runs after ${WARMUP} ` +
      `warm-ups, task ${item.task.id}`,
  };
}

/**
 * P20: on the project's own seeded code set (bench/run-fix-tasks.ts), accuracy of write → run → fix minus
 * write alone, paired by item, with Newcombe's 95% interval. The workers are scripted (the fixer fixes only
 * what the run step showed it), so this measures the pipeline: that the run step finds a failure the
 * question's examples show and hands it on, and that the score comes from the hidden tests alone.
 */
async function p20(): Promise<BenchResult> {
  const outcomes = await withHarness('dist-bench-p20', (page) =>
    page.evaluate(
      (items) =>
        (
          globalThis as unknown as {
            harness: { runFix(i: unknown): Promise<{ id: string; alone: boolean; fixed: boolean }[]> };
          }
        ).harness.runFix(items),
      RUN_FIX_TASKS,
    ),
  );
  const fixed = outcomes.map((o) => o.fixed);
  const alone = outcomes.map((o) => o.alone);
  const paired = comparePaired(fixed, alone);
  const rate = (xs: boolean[]) => `${xs.filter(Boolean).length}/${xs.length}`;
  const excludesZero = paired.interval.low > 0 || paired.interval.high < 0;
  return {
    // The lower end of the interval: above 0 is "the interval excludes 0", which is the goal.
    value: round(paired.interval.low),
    goal: 0.01,
    unit: 'gain, 95% low',
    better: 'higher',
    notes:
      `gain ${round(paired.difference)}: write → run → fix ${rate(fixed)}, write alone ${rate(alone)}; 95% interval ` +
      `[${round(paired.interval.low)}, ${round(paired.interval.high)}] ${excludesZero ? 'excludes' : 'includes'} 0 ` +
      `(${paired.wins} items won, ${paired.losses} lost, McNemar p ${round(paired.pValue)}); not fixed: ` +
      `${
        outcomes
          .filter((o) => !o.fixed)
          .map((o) => o.id)
          .join(', ') || 'none'
      }`,
  };
}

export const benchmarks: Benchmark[] = [
  { id: 'p19-run-step', title: 'P19: a run step (warm) ÷ the bench scoring the same code', run: p19 },
  {
    id: 'p20-run-fix-gain',
    title: 'P20: write → run → fix minus write alone, seeded bugs, scripted workers (accuracy)',
    run: p20,
  },
];
