// Whether reading a long PDF keeps the page responsive: pdf.js parses it in its own Web Worker.
import { type Browser, chromium, type Page } from '@playwright/test';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { manyPagesPdf } from '../test/fixtures/pdf-writer.ts';
import type { MainThreadReport, ReadSummary } from '../test/pages/attachments.ts';
import { loadNote } from './paired.ts';
import { previewBuiltApp } from './site.ts';
import { median, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const PAGES = 100;
/** Reads after the first (which also loads pdf.js and starts its worker). */
const WARM_READS = 3;

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  /** Wall time, µs. */
  dur?: number;
  /** Thread (CPU) time, µs. */
  tdur?: number;
  args?: { name?: string; data?: { frames?: { processId?: number; url?: string }[] } };
}

/**
 * The longest task the page's main thread ran while traced: the longest `RunTask` on the renderer's
 * `CrRendererMain` thread of the process that holds the harness page at `path` (Chromium's own task timings, as
 * DevTools' Performance panel shows them), in ms: its thread time (what the task itself cost the main
 * thread) and its wall time (that, plus any wait for a core while it ran).
 */
export function longestMainThreadTask(
  events: readonly TraceEvent[],
  path = '/test/pages/attachments.html',
): { cpu: number; wall: number; tasks: number; pid: number; tid: number } {
  const frames = events.flatMap((e) =>
    e.name === 'TracingStartedInBrowser' ? (e.args?.data?.frames ?? []) : [],
  );
  const pid = frames.find((f) => f.url?.includes(path))?.processId;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === pid,
  );
  if (!main) throw new Error('the trace has no main thread for the harness page');
  const tasks = events.filter(
    (e) => e.ph === 'X' && e.name === 'RunTask' && e.pid === main.pid && e.tid === main.tid,
  );
  const longest = (field: 'dur' | 'tdur') => Math.max(0, ...tasks.map((e) => (e[field] ?? 0) / 1000));
  return { cpu: longest('tdur'), wall: longest('dur'), tasks: tasks.length, pid: main.pid, tid: main.tid };
}

interface Read {
  ms: number;
  cpu: number;
  wall: number;
  tasks: number;
  longTasks: number[];
}

/** One read of the PDF, traced, with the page's own Long Tasks observed beside the trace. */
async function tracedRead(browser: Browser, page: Page, pdf: Uint8Array): Promise<Read> {
  await page
    .getByTestId('files')
    .setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) });
  await browser.startTracing(page, {
    categories: ['disabled-by-default-devtools.timeline', 'devtools.timeline', 'toplevel'],
  });
  // A string, not a function: tsx would wrap the function's inner names in a helper the page lacks.
  const result = (await page.evaluate(`(async () => {
    const h = globalThis.__attachments;
    h.watchMainThread();
    const read = await h.readInput();
    return { read, main: h.stopWatching() };
  })()`)) as { read: ReadSummary; main: MainThreadReport };
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
  const [attachment] = result.read.attachments;
  if (attachment?.kind !== 'pdf' || attachment.pages.length !== PAGES)
    throw new Error(`the PDF was not read: ${JSON.stringify(result.read.errors)}`);
  return {
    ms: result.read.ms,
    ...longestMainThreadTask(trace.traceEvents),
    longTasks: result.main.longTasks,
  };
}

/**
 * The longest main-thread task while a 100-page PDF (written by test/fixtures/pdf-writer.ts, 31 lines
 * of text a page) is read by the attachment reader in headless Chromium: test build, harness
 * test/pages/attachments.html under the app's CSP, served by `vite preview`. The first read also starts
 * the reader's thread. The value is the longest task's thread time over that read and the warm ones
 * after it: what reading costs the main thread. Its wall time is in the notes; on this shared machine it
 * is mostly the wait for a core, which a task of any size can meet.
 */
async function p18(): Promise<BenchResult> {
  const outDir = 'dist-bench-p18';
  const site = await previewBuiltApp(outDir, { mode: 'test' });
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const page = await browser.newPage();
    await page.goto(`${site.url}/test/pages/attachments.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const pdf = manyPagesPdf(PAGES);
    const cold = await tracedRead(browser, page, pdf);
    const warm: Read[] = [];
    for (let i = 0; i < WARM_READS; i++) warm.push(await tracedRead(browser, page, pdf));
    const all = [cold, ...warm];
    const longTasks = all.flatMap((r) => r.longTasks);
    const per = (field: 'cpu' | 'wall') => all.map((r) => round(r[field])).join(' / ');
    return {
      value: round(Math.max(...all.map((r) => r.cpu))),
      goal: 50,
      unit: 'ms',
      better: 'lower',
      notes:
        `${PAGES}-page PDF (${round(pdf.length / 1024)} KB): extraction ${round(cold.ms)} ms on the first read ` +
        `(the reader's thread started then), median ${round(median(warm.map((r) => r.ms)))} ms warm ` +
        `(${WARM_READS} reads). Longest main-thread task per read (CDP trace, RunTask on CrRendererMain), ` +
        `thread time ${per('cpu')} ms; wall time ${per('wall')} ms, which adds the wait for a core on a ` +
        `shared machine (${loadNote()}); ` +
        `Long Tasks API (wall): ${longTasks.length} over 50 ms` +
        (longTasks.length ? ` (${longTasks.map(round).join(', ')} ms)` : ''),
    };
  } finally {
    await browser.close();
    await site.close();
  }
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p18-pdf-main-thread',
    title: "P18: longest main-thread task while a 100-page PDF is read (pdf.js in the reader's thread)",
    run: p18,
  },
];
