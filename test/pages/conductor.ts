import { Wllama } from '@wllama/wllama';
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import { ConductorBridge } from '../../src/conductor/bridge.ts';
import { createPromptApiHost } from '../../src/conductor/prompt-api.ts';
import { BROWSER_MODEL } from '../../src/shared/browser-model.ts';
import type { ConductorListener, PlanRequest, StepEvent } from '../../src/shared/conductor-api.ts';
import type { ModelRef } from '../../src/shared/model.ts';
import { planPrompt } from '../../workers/engine-host.ts';

/**
 * Harness for the conductor: the real thread behind the real bridge, plus a raw wllama instance on the page
 * for side-by-side timing (P3). Everything is driven from Playwright through `window.__conductor`.
 */

const params = new URLSearchParams(location.search);
/** The harness owns the loaded model, as the app's state does: set once a load succeeds. */
let loadedModel: ModelRef | undefined;
/** The engine a plan may move to when the loaded one cannot take it (the app keeps the user's choice). */
let fallbackModel: ModelRef | undefined;
/** Chrome's model on this page (a test installs the documented double of LanguageModel before it loads). */
const browserModel = createPromptApiHost();
const bridge = new ConductorBridge({
  loadedModel: () => loadedModel,
  browserModel,
  fallbackModel: () => fallbackModel,
  pingIntervalMs: Number(params.get('pingInterval') ?? 1000),
  pingTimeoutMs: Number(params.get('pingTimeout') ?? 5000),
  cancelGraceMs: Number(params.get('cancelGrace') ?? 1500),
});

type PlanInput = Omit<PlanRequest, 'requestId' | 'model'>;

interface Trace {
  ok: boolean;
  response?: unknown;
  error?: { name: string; message: string };
  tokens: { t: number; text: string }[];
  steps: { t: number; event: StepEvent }[];
  startedAt: number;
  settledAt: number;
  cancelledAt?: number;
}

async function traced(
  run: (signal: AbortSignal, onEvent: ConductorListener) => Promise<unknown>,
  cancelAfterTokens?: number,
): Promise<Trace> {
  const controller = new AbortController();
  const trace: Trace = { ok: false, tokens: [], steps: [], startedAt: performance.now(), settledAt: 0 };
  const onToken = (text: string) => {
    trace.tokens.push({ t: performance.now(), text });
    if (cancelAfterTokens !== undefined && trace.tokens.length === cancelAfterTokens) {
      trace.cancelledAt = performance.now();
      controller.abort();
    }
  };
  const onStep = (event: StepEvent) => trace.steps.push({ t: performance.now(), event });
  const onEvent: ConductorListener = (event) => {
    if (event.kind === 'token') onToken(event.text);
    else if (event.kind !== 'stats') onStep(event);
  };
  try {
    trace.response = await run(controller.signal, onEvent);
    trace.ok = true;
  } catch (error) {
    const e = error as Error;
    trace.error = { name: e.name, message: e.message };
  }
  trace.settledAt = performance.now();
  return trace;
}

let raw: Wllama | undefined;

const harness = {
  bridge,
  async load(url: string, threads?: number) {
    const progress: unknown[] = [];
    const started = performance.now();
    const model: ModelRef = { engine: 'wllama', url, name: 'tiny', ...(threads ? { threads } : {}) };
    await bridge.load(model, (p) => progress.push(p));
    loadedModel = model;
    return { progress, ms: performance.now() - started };
  },
  /** Loads the browser's own model (Chrome's Prompt API) as the conductor. */
  async loadBrowserModel() {
    const progress: unknown[] = [];
    await bridge.load(BROWSER_MODEL, (p) => progress.push(p));
    loadedModel = BROWSER_MODEL;
    return { progress };
  },
  /** Allows the tiny CPU model at `url` as the engine a plan moves to (undefined: none). */
  allowFallback(url: string | undefined) {
    fallbackModel = url ? { engine: 'wllama', url, name: 'tiny', threads: 1 } : undefined;
  },
  plan(request: PlanInput, cancelAfterTokens?: number): Promise<Trace> {
    return traced((signal, onEvent) => bridge.plan({ ...request, signal }, onEvent), cancelAfterTokens);
  },
  chat(text: string, maxTokens: number, cancelAfterTokens?: number): Promise<Trace> {
    return traced(
      (signal, onEvent) =>
        bridge.chat({ messages: [{ role: 'user', content: text }], maxTokens, signal }, onEvent),
      cancelAfterTokens,
    );
  },
  restartCount: () => bridge.restartCount,
  /** Kills the thread behind the bridge's back (as a browser would kill a crashed thread). */
  terminateThread(): boolean {
    const thread = bridge.conductorThreadForTests;
    thread?.terminate();
    return !!thread;
  },
  crashThread: () => bridge.crashForTests(),

  /** Raw wllama on the page, for P3: same prompt and schema as the thread's plan, `maxTokens` tokens. */
  async rawLoad(url: string, threads?: number, extra: Record<string, unknown> = {}) {
    await raw?.exit().catch(() => {});
    raw = new Wllama(
      { default: wasmUrl },
      { suppressNativeLog: true, logger: { ...console, debug: () => {}, log: () => {} } },
    );
    raw.setCompat(null);
    const blob = await (await fetch(url)).blob();
    threads ??= crossOriginIsolated ? Math.max(1, navigator.hardwareConcurrency || 1) : 1;
    await raw.loadModel([blob], {
      n_ctx: 4096,
      n_threads: threads,
      n_gpu_layers: 0,
      n_parallel: 1,
      jinja: false,
      ...extra,
    });
  },
  /** `seed` fixes llama.cpp's sampling, so a sampled plan (temperature above 0) can be written again. */
  async rawPlan(request: PlanInput, maxTokens: number, temperature: number, seed?: number) {
    if (!raw) throw new Error('rawLoad first');
    const { messages, jsonSchema } = planPrompt({
      ...request,
      requestId: 'raw',
      model: { engine: 'wllama', url: '' },
    });
    let tokens = 0;
    let text = '';
    const started = performance.now();
    await raw.createChatCompletion({
      messages,
      stream: true,
      max_tokens: maxTokens,
      temperature,
      ...(seed !== undefined ? { seed } : {}),
      response_format: { type: 'json_schema', json_schema: { name: 'plan', schema: jsonSchema } },
      onData: (chunk) => {
        const piece = chunk.choices[0]?.delta.content;
        if (piece) {
          tokens++;
          text += piece;
        }
      },
    });
    return { ms: performance.now() - started, tokens, text };
  },
};

export type ConductorHarness = typeof harness;

declare global {
  var __conductor: typeof harness;
}
globalThis.__conductor = harness;
const status = document.getElementById('status')!;
status.textContent = 'ready';
status.dataset.ready = 'true';
