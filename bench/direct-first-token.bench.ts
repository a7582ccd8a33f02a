// P30 (issue 41): how soon Direct mode shows an answer. In the built app in Chromium, with a pool of one
// worker on the test provider and Direct mode chosen, the time from Enter in the question box to the first
// answer character painted, against the time a bare `fetch` from the same page takes to the first byte of
// the same model's answer text, in rounds alternating the order. Nothing plans: Direct mode asks no
// conductor, and none is loaded.
import { chromium, type Page } from '@playwright/test';
import { modelWorker, seedApp } from '../test/browser/seed-app.ts';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { startProvider } from '../test/provider/server.ts';
import { alternate, type Paired, pairedNote } from './paired.ts';
import { serveBuiltApp } from './site.ts';
import { median, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const GOAL = 1.15;
const ROUNDS = 10;
/** A fast cloud model's first token; the answer's length does not matter here (its first character does). */
const FIRST_TOKEN_MS = 400;
const PER_TOKEN_MS = 5;
const MODEL = 'p30';
/** Each round's question is `q<n>`; its answer starts `a<n>z`, found in the page once drawn. */
const answerOf = (question: string) => `a${question.slice(1)}z ${'word '.repeat(40)}`;

const firstUser = (body: Record<string, unknown>): string =>
  String(
    (body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user')?.content ?? '',
  );

declare global {
  var __p30: { arm(marker: string): void; result?: Promise<number> } | undefined;
}

/**
 * Installs, in the page, the timing of one question: from the Enter key's event (captured before the app's
 * own handler) to the first frame painted after the run view holds the answer's first characters (a task
 * posted from the frame's animation callback runs once that frame is painted).
 */
function installTiming(): void {
  const timing: NonNullable<typeof globalThis.__p30> = {
    arm(marker) {
      const box = document.querySelector<HTMLTextAreaElement>('#question');
      if (!box) throw new Error('no question box');
      timing.result = new Promise<number>((resolve) => {
        let start: number | undefined;
        const observer = new MutationObserver(() => {
          if (start === undefined) return;
          if (!document.querySelector('[data-testid="run"]')?.textContent?.includes(marker)) return;
          observer.disconnect();
          const from = start;
          requestAnimationFrame(() => {
            const channel = new MessageChannel();
            channel.port1.onmessage = () => resolve(performance.now() - from);
            channel.port2.postMessage(null);
          });
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        box.addEventListener(
          'keydown',
          (event) => {
            if (event.key === 'Enter') start = performance.now();
          },
          { capture: true, once: true },
        );
      });
    },
  };
  globalThis.__p30 = timing;
}

/** Milliseconds from a bare `fetch` of the same request to the first byte of the answer's text. */
function bareFirstByte(args: { url: string; question: string; marker: string }): Promise<number> {
  return (async () => {
    const start = performance.now();
    const response = await fetch(args.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'p30',
        messages: [{ role: 'user', content: args.question }],
        stream: true,
      }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error('the answer ended before its first word');
      seen += decoder.decode(value, { stream: true });
      if (seen.includes(args.marker)) {
        const ms = performance.now() - start;
        await reader.cancel();
        return ms;
      }
    }
  })();
}

async function waitForDone(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelector('[data-testid="run"]')?.getAttribute('data-phase') === 'done',
    undefined,
    { timeout: 60_000 },
  );
}

async function measure(): Promise<Paired> {
  const provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: MODEL,
        // The question is the first user turn (the step's task comes after it).
        behaviour: { kind: 'request', fn: (body) => answerOf(firstUser(body)) },
        latency: { firstTokenMs: FIRST_TOKEN_MS, perTokenMs: PER_TOKEN_MS },
      },
    ],
  });
  const site = await serveBuiltApp('dist-bench-p30');
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    const context = await browser.newContext({ baseURL: site.url, serviceWorkers: 'block' });
    const page = await context.newPage();
    await seedApp(page, { pool: [modelWorker('w1', provider.baseURL, MODEL, 'Walker general')] });
    await page.goto('/#/ask');
    await page.getByTestId('composer').getByLabel('Direct').check();
    await page.evaluate(installTiming);
    const box = page.getByTestId('composer').getByLabel('Your question');
    const url = `${provider.baseURL}/chat/completions`;
    let n = 0;
    const side = async (which: 'app' | 'bare') => {
      const question = `q${n++}`;
      const marker = answerOf(question).slice(0, question.length + 1);
      if (which === 'bare') return page.evaluate(bareFirstByte, { url, question, marker });
      // Typed as a user types; the clock starts at Enter, in the page.
      await page.evaluate((marker) => globalThis.__p30!.arm(marker), marker);
      await box.fill(question);
      await box.press('Enter');
      const ms = await page.evaluate(() => globalThis.__p30!.result!);
      await waitForDone(page);
      return ms;
    };
    // Unmeasured rounds of each: modules loaded, databases opened, connections warm.
    for (let i = 0; i < 2; i++) for (const which of ['app', 'bare'] as const) await side(which);
    return await alternate(ROUNDS, side);
  } finally {
    await browser.close();
    await site.close();
    await provider.close();
  }
}

async function p30(): Promise<BenchResult> {
  const m = await measure();
  return {
    value: Number(median(m.ratios).toFixed(3)),
    goal: GOAL,
    unit: '× bare fetch',
    better: 'lower',
    notes: pairedNote(
      m,
      `Enter to first answer character painted ${round(median(m.app))} ms, bare fetch to the answer's ` +
        `first byte ${round(median(m.bare))} ms`,
      `first token ${FIRST_TOKEN_MS} ms`,
    ),
  };
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p30-direct-first-token',
    title: 'P30: Direct mode, Enter to the first answer character painted ÷ bare fetch to its first byte',
    run: p30,
  },
];
