// Conductor benchmarks: P3 our plan() overhead over raw wllama, P4 page JS before any action, P21 a second
// question to the same pool on top of the kept prompt prefix.
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from '@playwright/test';
import type { ChatMessage } from '../src/shared/chat.ts';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { startModelServer } from '../test/fixtures/model-server.ts';
import { installPromptApiDouble, type PromptApiDoubleRecord } from '../test/fixtures/prompt-api-double.ts';
import type { ConductorHarness } from '../test/pages/conductor.ts';
import { PLANNER_MODEL_ID, plannerModel } from '../test/provider/planner-model.ts';
import { startProvider } from '../test/provider/server.ts';
import { EngineHost } from '../workers/engine-host.ts';
import { createLocalServerEngine } from '../workers/engines/local-server.ts';
import { countTokens, qwen3ChatText } from './prompt-tokens.bench.ts';
import { buildApp, serveBuiltApp } from './site.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

declare global {
  var __conductor: ConductorHarness;
  var __promptApiDouble: PromptApiDoubleRecord;
}

const ROOT = resolve(import.meta.dirname, '..');

const POOL = [
  { id: 'w1', label: 'Fast model', strengths: 'quick short answers', costTier: 'low' as const },
  { id: 'w2', label: 'Coder', strengths: 'writes and fixes code', costTier: 'medium' as const },
  { id: 'w3', label: 'Strong model', strengths: 'hard reasoning and math', costTier: 'high' as const },
];
const ROUNDS = 11;
/** P3's paired rounds: its ratio is a few percent either way, and one slow moment of the machine moves it. */
const P3_ROUNDS = 21;

/**
 * The conductor harness page (test/pages/conductor.ts) of a test build, with the tiny model served beside
 * it, for `measure`; everything is closed afterwards.
 */
async function withHarness<T>(
  outDir: string,
  measure: (
    page: Page,
    modelURL: string,
    openPage: (prepare?: (page: Page) => Promise<void>) => Promise<Page>,
  ) => Promise<T>,
): Promise<T> {
  const site = await serveBuiltApp(outDir, { mode: 'test' });
  const models = await startModelServer();
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  /** Another harness page; `prepare` runs before it loads (an init script). */
  const openPage = async (prepare?: (page: Page) => Promise<void>) => {
    const page = await browser.newPage();
    await prepare?.(page);
    await page.goto(`${site.url}/test/pages/conductor.html`);
    await page.waitForFunction(() => document.getElementById('status')?.dataset.ready === 'true');
    return page;
  };
  try {
    return await measure(await openPage(), models.url, openPage);
  } finally {
    await browser.close();
    await models.close();
    await site.close();
  }
}

/**
 * P3: plan() through the bridge and the worker (prompt building, streaming, incremental parsing,
 * validation) against wllama called directly on the page with the same prompt, schema and token count.
 * Greedy decoding (temperature 0) makes both write the same tokens. Both load the model with one thread:
 * on this shared machine more threads only add noise to both sides.
 */
async function p3(): Promise<BenchResult> {
  return withHarness('dist-bench-conductor', async (page, modelURL) => {
    await page.evaluate(async (url) => {
      await globalThis.__conductor.load(url, 1);
      await globalThis.__conductor.rawLoad(url, 1);
    }, modelURL);
    // A plan of real length: five steps over the pool (conductor mode, the app's default of 5 steps).
    const request = {
      question: 'Write a short python function that adds two numbers, then check it.',
      pool: POOL,
      mode: 'conductor' as const,
      maxSteps: 5,
      maxDepth: 0,
      maxTaskLength: 300,
      maxThoughtLength: 300,
      maxTokens: 400,
      temperature: 0,
    };
    const ratios: number[] = [];
    const ours: number[] = [];
    const raws: number[] = [];
    const bridgeMs: number[] = [];
    let tokens = 0;
    let decode = 0;
    let prefill = 0;
    let repaired = 0;
    let steps = 0;
    let planText = '';
    for (let i = 0; i <= P3_ROUNDS; i++) {
      // Alternate which side runs first, so neither always gets the warmer caches or the quieter moment.
      const rawFirst = i % 2 === 1;
      const result = await page.evaluate(
        async ({ req, rawFirst }) => {
          const h = globalThis.__conductor;
          // Greedy decoding gives the same tokens on both sides; the count comes from a first plan.
          const before = rawFirst ? await h.rawPlan(req, req.maxTokens, req.temperature) : undefined;
          const started = performance.now();
          const trace = await h.plan(req);
          const planMs = performance.now() - started;
          if (!trace.ok) throw new Error(`plan failed: ${trace.error?.message}`);
          const response = trace.response as {
            raw: string;
            plan: { steps: unknown[] };
            repaired?: unknown;
            fallback?: unknown;
            stats: {
              ms: number;
              completionTokens: number;
              decodeTokensPerSec?: number;
              prefillTokensPerSec?: number;
            };
          };
          const raw = before ?? (await h.rawPlan(req, response.stats.completionTokens, req.temperature));
          return { planMs, response, raw };
        },
        { req: request, rawFirst },
      );
      if (process.env.BENCH_DEBUG) {
        process.stderr.write(
          `\n round ${i} rawFirst=${rawFirst} plan ${round(result.planMs)} (worker ${round(result.response.stats.ms)}) raw ${round(result.raw.ms)} tokens ${result.response.stats.completionTokens}/${result.raw.tokens}`,
        );
      }
      if (result.response.repaired || result.response.fallback) repaired++;
      if (i === 0) continue; // warm-up
      ours.push(result.planMs);
      raws.push(result.raw.ms);
      bridgeMs.push(result.planMs - result.response.stats.ms);
      ratios.push(result.planMs / result.raw.ms);
      tokens = result.response.stats.completionTokens;
      steps = result.response.plan.steps.length;
      planText = result.response.raw;
      decode = result.response.stats.decodeTokensPerSec ?? 0;
      prefill = result.response.stats.prefillTokensPerSec ?? 0;
      if (result.raw.text !== result.response.raw) {
        process.stderr.write('(P3: raw and planned outputs differ in this round) ');
      }
    }
    if (steps !== 5) throw new Error(`P3 measures a 5-step plan; the model wrote ${steps} steps`);
    return {
      value: round(median(ratios)),
      goal: 1.05,
      unit: 'ratio',
      better: 'lower',
      notes:
        `median of ${P3_ROUNDS} paired rounds (p90 ${round(quantile(ratios, 0.9))}); plan ${round(median(ours))} ms vs ` +
        `raw ${round(median(raws))} ms for a ${steps}-step plan of ${tokens} tokens (the tiny model's vocabulary is ` +
        `characters: ${countTokens(planText)} Qwen3 tokens); decode ${round(decode)} tok/s, prefill ${round(prefill)} tok/s ` +
        `(llama.cpp reuses the cached prompt prefix on both sides); page-to-worker overhead (the bridge's own cost per plan) ${round(median(bridgeMs))} ms, ${round((100 * median(bridgeMs)) / median(ours))}% of the plan ` +
        '(set BENCH_DEBUG=1 for every round)' +
        (repaired
          ? `; ${repaired} plans needed a repair or fallback (their extra attempt counts against us)`
          : ''),
    };
  });
}

/**
 * P4: JavaScript the page loads before the user does anything, gzip bytes: the production build's
 * index.html module scripts and modulepreloads. web-llm lives only in the worker, so it must not appear.
 */
async function p4(): Promise<BenchResult> {
  const outDir = 'dist-bench-p4';
  await buildApp(outDir);
  try {
    const dir = resolve(ROOT, outDir);
    const html = await readFile(join(dir, 'index.html'), 'utf8');
    const urls = new Set<string>();
    for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
      const isModule = /^<script\b/.test(tag) && /type=["']module["']/.test(tag);
      const isPreload = /^<link\b/.test(tag) && /rel=["']modulepreload["']/.test(tag);
      const src = /(?:src|href)=["']([^"']+)["']/.exec(tag)?.[1];
      if ((isModule || isPreload) && src && !/^https?:/.test(src)) urls.add(src);
    }
    let gzip = 0;
    let rawBytes = 0;
    const files: string[] = [];
    let webllm = false;
    for (const url of urls) {
      const body = await readFile(join(dir, url.replace(/^\//, '')));
      rawBytes += body.byteLength;
      const size = gzipSync(body, { level: 9 }).byteLength;
      gzip += size;
      files.push(`${url.split('/').pop()} ${round(size / 1024)} KB`);
      if (/MLCEngine|tvmjs|@mlc-ai/.test(body.toString('utf8'))) webllm = true;
    }
    if (urls.size === 0) throw new Error('index.html has no module script');
    return {
      value: round(gzip / 1024),
      goal: 150,
      unit: 'KB gzip',
      better: 'lower',
      notes:
        `${urls.size} files, ${round(rawBytes / 1024)} KB before gzip: ${files.join(', ')}` +
        (webllm ? '; WARNING: web-llm code found in the page bundle' : '; no web-llm code in them'),
    };
  } finally {
    await rm(resolve(ROOT, outDir), { recursive: true, force: true });
  }
}

/** A pool of three workers with the labels made distinct per round, so each round's first question is cold. */
function roundPool(round: number) {
  return POOL.map((w) => ({ ...w, label: `${w.label} ${round}` }));
}

const FIRST_QUESTION = 'Write a short python function that adds two numbers, then check it.';
const SECOND_QUESTION = 'Explain in two sentences why the sky is blue.';

/** What a plan's engine said of its prompt: tokens in it, and tokens it found already in its cache. */
interface PromptStats {
  promptTokens: number;
  cachedPromptTokens?: number;
}
interface Asked {
  ms: number;
  stats: PromptStats;
  /** Prompt API only: whether the plan created the session holding the prompt's prefix (it prefilled it). */
  created?: boolean;
}

const SECOND_PLAN = {
  mode: 'conductor' as const,
  maxSteps: 3,
  maxDepth: 0,
  maxTaskLength: 40,
  maxThoughtLength: 40,
  maxTokens: 300,
  temperature: 0,
};

/** A first and a second question to `pool` on the harness page's loaded engine, in order. */
async function askTwice(
  page: Page,
  pool: ReturnType<typeof roundPool>,
  promptApi: boolean,
): Promise<Asked[]> {
  return page.evaluate(
    async ({ requests, promptApi }) => {
      const h = globalThis.__conductor;
      const out = [];
      for (const request of requests) {
        const creates = promptApi ? globalThis.__promptApiDouble.creates.length : 0;
        const trace = await h.plan(request);
        const first = trace.steps.find((s) => s.event.kind === 'step');
        if (!trace.ok || !first) throw new Error(`plan failed: ${trace.error?.message ?? 'no step'}`);
        const stats = (trace.response as { stats: { promptTokens: number; cachedPromptTokens?: number } })
          .stats;
        out.push({
          ms: first.t - trace.startedAt,
          stats,
          ...(promptApi ? { created: globalThis.__promptApiDouble.creates.length > creates } : {}),
        });
      }
      return out;
    },
    {
      requests: [
        { ...SECOND_PLAN, question: FIRST_QUESTION, pool },
        { ...SECOND_PLAN, question: SECOND_QUESTION, pool },
      ],
      promptApi,
    },
  );
}

/** Prompt tokens the engine computed (prefilled) rather than took from its cache. */
const prefilled = (asked: Asked) =>
  asked.created ? asked.stats.promptTokens : asked.stats.promptTokens - (asked.stats.cachedPromptTokens ?? 0);

/**
 * The rounds behind P21 and P21's prefill count, measured once for both: per round a pool of its own
 * (so its first question finds another pool's prompt in the cache), a first and a second question to it,
 * on the CPU engine (wllama, the tiny model, one thread) and on the Prompt API (Chrome's LanguageModel
 * replaced by test/fixtures/prompt-api-double.ts, which counts tokens as the documentation says).
 */
let secondPlanRounds: Promise<{ cpu: Asked[][]; promptApi: Asked[][] }> | undefined;
function secondPlans() {
  secondPlanRounds ??= withHarness('dist-bench-p21', async (page, modelURL, openPage) => {
    await page.evaluate((url) => globalThis.__conductor.load(url, 1), modelURL);
    const browserPage = await openPage(async (p) => {
      // tsx (esbuild, keepNames) wraps the double's inner functions in `__name(...)`, a helper of this
      // module that does not travel with the function's source to the page: the page gets one of its own.
      await p.addInitScript('globalThis.__name = (target) => target;');
      await p.addInitScript(installPromptApiDouble, { chunkDelayMs: 0 });
    });
    await browserPage.evaluate(() => globalThis.__conductor.loadBrowserModel());
    const cpu: Asked[][] = [];
    const promptApi: Asked[][] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const pool = roundPool(round);
      const [first, second] = await askTwice(page, pool, false);
      if (!first || !second) throw new Error('P21: a plan is missing');
      if (process.env.BENCH_DEBUG) {
        process.stderr.write(
          `\n round ${round}: first ${round2(first.ms)} ms (${first.stats.cachedPromptTokens ?? '?'} of ${first.stats.promptTokens} cached), ` +
            `second ${round2(second.ms)} ms (${second.stats.cachedPromptTokens ?? '?'} of ${second.stats.promptTokens} cached)`,
        );
      }
      if (round > 0) cpu.push([first, second]); // round 0 warms up
      if (round < 3) promptApi.push(await askTwice(browserPage, pool, true));
    }
    return { cpu, promptApi };
  });
  return secondPlanRounds;
}

/**
 * P21: time to the first streamed plan step for a second question to the same pool, over the first's,
 * on the CPU engine with the tiny model. The system prompt, the few-shot plans and the pool are the same
 * for both questions, so llama.cpp (in wllama) keeps their KV cache and the second prefills only itself.
 * The tiny model prefills so fast that fixed costs dominate this timing: P21's prefill count says what
 * the cache saves on a real model.
 */
async function p21(): Promise<BenchResult> {
  const { cpu } = await secondPlans();
  const firsts = cpu.map(([first]) => first!.ms);
  const seconds = cpu.map(([, second]) => second!.ms);
  const ratios = cpu.map(([first, second]) => second!.ms / first!.ms);
  const cached = cpu.map(([, second]) => second!.stats.cachedPromptTokens ?? 0);
  return {
    value: round(median(ratios)),
    goal: 0.6,
    unit: 'ratio',
    better: 'lower',
    notes:
      `median of ${ROUNDS} rounds (p90 ${round(quantile(ratios, 0.9))}); first step after ${round(median(firsts))} ms ` +
      `for a first question vs ${round(median(seconds))} ms for a second; the second found ${round(median(cached))} of its ` +
      `${cpu.at(-1)?.[1]?.stats.promptTokens} prompt tokens in llama.cpp's cache (tiny model, one thread; set BENCH_DEBUG=1 for every round)`,
  };
}

/**
 * P21, counted: prompt tokens an engine actually prefills for a second question to the same pool, over
 * the first's, per engine. The value is the worst engine that keeps a prefix. CPU (wllama): llama.cpp's
 * own count of the tokens it reused (`timings.cache_n`). Prompt API: the session holding the prompt's
 * prefix is cloned for each question, so a question that created it prefilled it all, and one that cloned
 * it only what it prompted (the question and, as Chrome counts it, the response constraint). Local server:
 * the requests the engine sent, laid out as llama.cpp's server does for Qwen3 and tokenized; a server that
 * keeps the prompt (llama.cpp's cache_prompt, Ollama's and LM Studio's kept context, vLLM's prefix caching)
 * prefills what follows the longest prefix shared with the request before. web-llm: 1.0, see below.
 */
async function p21Prefill(): Promise<BenchResult> {
  const [{ cpu, promptApi }, server] = await Promise.all([secondPlans(), localServerPrefill()]);
  const ratio = (rounds: Asked[][]) =>
    median(rounds.map(([first, second]) => prefilled(second!) / prefilled(first!)));
  const counts = (rounds: Asked[][]) =>
    `${round(median(rounds.map(([, s]) => prefilled(s!))))} of ${rounds.at(-1)?.[1]?.stats.promptTokens} tokens vs ` +
    `${round(median(rounds.map(([f]) => prefilled(f!))))} of ${rounds.at(-1)?.[0]?.stats.promptTokens}`;
  const engines = { cpu: ratio(cpu), server: server.ratio, promptApi: ratio(promptApi) };
  return {
    value: round(Math.max(engines.cpu, engines.server, engines.promptApi)),
    goal: 0.1,
    unit: 'ratio',
    better: 'lower',
    notes:
      `worst of: CPU (wllama, tiny model) ${round(engines.cpu)} (${counts(cpu)}, llama.cpp's cache_n, median of ${cpu.length} rounds); ` +
      `local server ${round(engines.server)} (${server.counts}, Qwen3 tokens of the requests sent, after the longest prefix shared with the request before); ` +
      `Prompt API ${round(engines.promptApi)} (${counts(promptApi)}, the documented double's counts); ` +
      "web-llm 1.0: its engine keeps the KV cache only when a request continues the conversation it last answered (its compareConversationObject), and a new question's messages do not, so it resets and prefills the whole prompt; " +
      'the timing beside it is p21-second-plan',
  };
}

/** The local server engine in Node, through the engine host, against the test provider's planner model. */
async function localServerPrefill(): Promise<{ ratio: number; counts: string }> {
  const provider = await startProvider({ models: [plannerModel()] });
  try {
    const host = new EngineHost(async () =>
      createLocalServerEngine({ fetch: (input, init) => fetch(input, init) }),
    );
    await host.load({
      engine: 'local-server',
      baseURL: provider.baseURL,
      model: PLANNER_MODEL_ID,
      server: 'llamacpp',
    });
    const chats = () => provider.requests.filter((r) => r.path === '/v1/chat/completions');
    /** The prompt of the plan's first request, as the server lays it out (a repair would be a second). */
    const ask = async (question: string, pool: ReturnType<typeof roundPool>) => {
      const from = chats().length;
      await host.plan({ ...SECOND_PLAN, question, pool }, () => {});
      const sent = chats()[from];
      if (!sent) throw new Error('the local server engine sent no request');
      return qwen3ChatText((sent.body as { messages: ChatMessage[] }).messages);
    };
    // Another pool's question first, as in the browser rounds: the first question finds its prompt cached.
    const sent = [
      await ask(FIRST_QUESTION, roundPool(100)),
      await ask(FIRST_QUESTION, roundPool(101)),
      await ask(SECOND_QUESTION, roundPool(101)),
    ];
    const [before, first, second] = sent as [string, string, string];
    const fresh = (text: string, previous: string) => {
      let shared = 0;
      while (shared < text.length && text[shared] === previous[shared]) shared++;
      return countTokens(text) - countTokens(text.slice(0, shared));
    };
    const firstFresh = fresh(first, before);
    const secondFresh = fresh(second, first);
    return {
      ratio: secondFresh / firstFresh,
      counts: `${secondFresh} of ${countTokens(second)} tokens vs ${firstFresh} of ${countTokens(first)}`,
    };
  } finally {
    await provider.close();
  }
}

const round2 = (x: number) => Math.round(x);

export const benchmarks: Benchmark[] = [
  { id: 'p3-plan-overhead', title: 'P3: plan() via bridge ÷ raw wllama, same tokens (tiny model)', run: p3 },
  { id: 'p4-page-js', title: 'P4: page JS before any action (gzip, web-llm excluded)', run: p4 },
  {
    id: 'p21-second-plan',
    title: 'P21: first plan step for a second question to the same pool ÷ the first (CPU engine, tiny model)',
    run: p21,
  },
  {
    id: 'p21-second-plan-prefill',
    title:
      'P21: prompt tokens prefilled for a second question to the same pool ÷ the first (worst of CPU, local server, Prompt API)',
    run: p21Prefill,
  },
];
