// History benchmarks (issue 10, "History at scale"): P7 opening History with 10,000 stored runs against
// 100, and searching 10,000 runs. The production build in Chromium with real IndexedDB; the stored runs
// are written as the first database version stored them (~9.5 KB each with their steps), so the app's own
// upgrade builds their summaries before anything is measured.
import { type BrowserContext, chromium, type Page } from '@playwright/test';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { goodRun } from '../test/fixtures/run-records.ts';
import { STORED_ECHO_WORKER, writeVersion1Database } from '../test/fixtures/version1-runs.ts';
import { serveBuiltApp } from './site.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const ROUNDS = 7;
const SMALL = 100;
const LARGE = 10_000;
/** Questions mention one of this many topics: a search for one matches about LARGE / TOPICS runs. */
const TOPICS = 97;

declare global {
  var __firstRow: number | undefined;
}

/** Writes `count` runs of ~9.5 KB (a run record and three steps) into a version-1 runs database, 500 at a time. */
async function seed(page: Page, count: number): Promise<void> {
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu '.repeat(40);
  const t0 = 1_750_000_000_000;
  for (let start = 0; start < count; start += 500) {
    const runs: unknown[] = [];
    const steps: unknown[] = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const id = `run-${i}`;
      const plan = [0, 1, 2].map((s) => ({
        worker: 'w1',
        task: `Step ${s} of run ${i}`,
        sees: s ? [s - 1] : [],
      }));
      runs.push(
        goodRun(id, t0 + i * 1000 + 500, {
          question: `Question ${i} about topic${i % TOPICS}: ${words.slice(0, 200)}`,
          pool: [{ ...STORED_ECHO_WORKER, strengths: 'repeats' }],
          plan: { thought: 'three steps', steps: plan },
          createdAt: t0 + i * 1000,
          totals: {
            promptTokens: 30,
            completionTokens: 90,
            cost: 0.001,
            steps: 3,
            done: 3,
            failed: 0,
            cancelled: 0,
          },
          answer: `Answer ${i}: ${words.slice(0, 1500)}`,
        }),
      );
      for (const [index, step] of plan.entries()) {
        steps.push({
          runId: id,
          index,
          ...step,
          depth: 0,
          state: 'done',
          text: words.slice(0, 2500),
          usage: { promptTokens: 10, completionTokens: 30 },
          timings: { queuedAt: t0, startedAt: t0 + 1, endedAt: t0 + 2 },
          attempts: 1,
        });
      }
    }
    await page.evaluate(writeVersion1Database, { name: 'baton-runs', runs, steps });
  }
}

/** A profile holding `count` runs, already upgraded by one visit of the app. */
async function profileWith(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  url: string,
  count: number,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.addInitScript(() => {
    globalThis.__firstRow = undefined;
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="history-item"]')) {
        globalThis.__firstRow = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, childList: true });
  });
  const page = await context.newPage();
  await page.goto(`${url}/favicon.svg`);
  await seed(page, count);
  await openHistory(page, url); // the upgrade to summaries happens here, unmeasured
  return { context, page };
}

/** Opens History in a fresh page load; ms from navigation start to the first row on screen. */
async function openHistory(page: Page, url: string): Promise<number> {
  await page.goto('about:blank'); // a real page load each time, not a same-document hash change
  await page.goto(`${url}/#/history`);
  await page.waitForFunction(() => globalThis.__firstRow !== undefined, null, { timeout: 300_000 });
  return page.evaluate(() => globalThis.__firstRow ?? Number.NaN);
}

/** Opens History, reads the time, then leaves, so its background work (the search index) cannot slow the other side. */
async function timeOpenHistory(page: Page, url: string): Promise<number> {
  const ms = await openHistory(page, url);
  await page.goto('about:blank');
  return ms;
}

/** ms from typing `query` into the search box to the count of matches on screen (the debounce included). */
function timeSearch(page: Page, query: string, expected: number): Promise<number> {
  return page.evaluate(
    ({ query, expected }) =>
      new Promise<number>((resolve) => {
        const input = document.getElementById('history-search') as HTMLInputElement;
        const want = `${expected} run${expected === 1 ? '' : 's'} match.`;
        const started = performance.now();
        const observer = new MutationObserver(() => {
          const status = [...document.querySelectorAll('[role="status"]')].some(
            (el) => el.textContent === want,
          );
          if (status) {
            observer.disconnect();
            resolve(performance.now() - started);
          }
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        input.value = query;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    { query, expected },
  );
}

const matches = (topic: number) => Math.floor((LARGE - 1 - topic) / TOPICS) + 1;

interface Measured {
  small: number[];
  large: number[];
  firstSearch: number;
  searches: number[];
  domNodes: number;
}

let measured: Promise<Measured> | undefined;

/** Both figures come from one build and one pair of profiles, measured side by side. */
function measure(): Promise<Measured> {
  measured ??= (async () => {
    const site = await serveBuiltApp('dist-bench-history');
    const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
    try {
      const small = await profileWith(browser, site.url, SMALL);
      const large = await profileWith(browser, site.url, LARGE);
      const out: Measured = { small: [], large: [], firstSearch: 0, searches: [], domNodes: 0 };
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate which side goes first, so neither always gets the quieter moment.
        const order = i % 2 ? [large, small] : [small, large];
        for (const side of order) {
          const ms = await timeOpenHistory(side.page, site.url);
          (side === small ? out.small : out.large).push(ms);
        }
      }
      await openHistory(large.page, site.url);
      out.domNodes = await large.page.evaluate(() => document.querySelectorAll('*').length);
      out.firstSearch = await timeSearch(large.page, 'topic42', matches(42));
      for (let i = 0; i < ROUNDS; i++) {
        const topic = 10 + i;
        out.searches.push(await timeSearch(large.page, `topic${topic}`, matches(topic)));
      }
      await small.context.close();
      await large.context.close();
      return out;
    } finally {
      await browser.close();
      await site.close();
    }
  })();
  return measured;
}

async function p7Open(): Promise<BenchResult> {
  const m = await measure();
  const ratio = median(m.large) / median(m.small);
  return {
    value: round(ratio),
    goal: 2,
    unit: 'ratio',
    better: 'lower',
    notes:
      `median of ${ROUNDS} alternating page loads: ${round(median(m.large))} ms with ${LARGE} runs ` +
      `(p90 ${round(quantile(m.large, 0.9))}) vs ${round(median(m.small))} ms with ${SMALL}; ` +
      `${m.domNodes} DOM nodes on History with ${LARGE} runs`,
  };
}

async function p7Search(): Promise<BenchResult> {
  const m = await measure();
  return {
    value: round(median(m.searches)),
    goal: 300,
    unit: 'ms',
    better: 'lower',
    notes:
      `typing a query to the matches on screen with ${LARGE} runs (150 ms debounce included), median of ` +
      `${ROUNDS} (p90 ${round(quantile(m.searches, 0.9))}); the first search, which builds the index, ` +
      `${round(m.firstSearch)} ms`,
  };
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p7-history-open',
    title: 'P7: open History, 10,000 runs ÷ 100 runs (first page on screen)',
    run: p7Open,
  },
  { id: 'p7-history-search', title: 'P7: search History with 10,000 runs', run: p7Search },
];
