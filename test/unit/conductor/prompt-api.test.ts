/**
 * The browser's own model (src/conductor/prompt-api.ts) against a double of Chrome's Prompt API that
 * follows its documentation (test/fixtures/prompt-api-double.ts), driven the way the conductor thread
 * drives it: its engine (workers/engines/prompt-api.ts) under the engine host that plans with every engine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPromptApiHost, type LanguageModelStatic } from '../../../src/conductor/prompt-api.ts';
import { BROWSER_MODEL } from '../../../src/shared/browser-model.ts';
import type { ConductorEvent, PlanRequest, PlanResponse } from '../../../src/shared/conductor-api.ts';
import { EngineError } from '../../../src/shared/engine-errors.ts';
import type { LoadProgress } from '../../../src/shared/model.ts';
import { validatePlan } from '../../../src/shared/plan/index.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine, ModelRef } from '../../../workers/engines/engine.ts';
import { createPromptApiEngine } from '../../../workers/engines/prompt-api.ts';
import {
  installPromptApiDouble,
  type PromptApiDoubleConfig,
  type PromptApiDoubleRecord,
} from '../../fixtures/prompt-api-double.ts';

const scope = globalThis as {
  LanguageModel?: LanguageModelStatic;
  __promptApiDouble?: PromptApiDoubleRecord;
};

afterEach(() => {
  delete scope.LanguageModel;
  delete scope.__promptApiDouble;
});

function double(config: PromptApiDoubleConfig = {}) {
  installPromptApiDouble({ chunkDelayMs: 0, ...config });
  const api = scope.LanguageModel;
  const record = scope.__promptApiDouble;
  if (!api || !record) throw new Error('the double did not install');
  return { api, record };
}

/** A CPU engine that writes one scripted plan: the engine the user allowed next. */
function cpuFallback(plan: string) {
  let model: ModelRef | undefined;
  const engine: ConductorEngine = {
    kind: 'wllama',
    loaded: () => model,
    async load(m) {
      model = m;
    },
    async generate(request) {
      request.onToken(plan);
      return { text: plan, promptTokens: 10, completionTokens: 5, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {
      model = undefined;
    },
  };
  return engine;
}

const CPU: ModelRef = { engine: 'wllama', url: 'https://models.example/tiny.gguf', name: 'tiny' };
const CPU_PLAN = '{"thought":"cpu","steps":[{"worker":"w2","task":"answer it","sees":[]}]}';

function setup(config: PromptApiDoubleConfig = {}) {
  const { api, record } = double(config);
  const page = createPromptApiHost(api);
  const host = new EngineHost(async (kind) =>
    kind === 'prompt-api' ? createPromptApiEngine({ host: () => page }) : cpuFallback(CPU_PLAN),
  );
  return { page, host, record };
}

const pool = [
  { id: 'w1', label: 'Fast model', strengths: 'quick short answers', costTier: 'low' as const },
  { id: 'w2', label: 'Strong model', strengths: 'hard reasoning', costTier: 'high' as const },
];

function request(question: string, extra: Partial<PlanRequest> = {}): PlanRequest {
  return { model: BROWSER_MODEL, question, pool, mode: 'conductor', maxSteps: 3, maxDepth: 0, ...extra };
}

async function plan(host: EngineHost, req: PlanRequest) {
  const events: ConductorEvent[] = [];
  const settled = await host
    .plan(req, (event) => events.push(event))
    .then(
      (response) => ({ response, error: undefined }),
      (error: Error) => ({ response: undefined, error }),
    );
  return { ...settled, events };
}

describe('the browser model on the page', () => {
  it('reports the documented availability states, and no-api where there is no LanguageModel', async () => {
    expect(await createPromptApiHost(undefined).availability()).toBe('no-api');
    for (const state of ['unavailable', 'downloadable', 'downloading', 'available'] as const) {
      const { api } = double({ availability: state });
      expect(await createPromptApiHost(api).availability()).toBe(state);
    }
    // It asks for the planner's language: a model without English is unavailable to it.
    const { api } = double({ languages: ['ja'] });
    expect(await createPromptApiHost(api).availability()).toBe('unavailable');
  });

  it('never starts a download unasked: loading a downloadable model refuses and says how', async () => {
    const { host, record } = setup({ availability: 'downloadable' });
    const error = await host.load(BROWSER_MODEL).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).name).toBe('BrowserModelUnavailableError');
    expect((error as Error).message).toContain("Download Chrome's model");
    expect(record.creates).toEqual([]);
  });

  it('downloads on request with progress from the monitor, after which it is available', async () => {
    const { page, record } = setup({ availability: 'downloadable' });
    const progress: LoadProgress[] = [];
    await page.download((p) => progress.push(p));
    expect(progress.map((p) => p.fraction)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(progress.every((p) => p.phase === 'download')).toBe(true);
    expect(record.creates).toEqual([{ initialPrompts: 0, downloaded: true }]);
    expect(await page.availability()).toBe('available');
  });

  it('says why an unavailable model cannot be loaded', async () => {
    const { host } = setup({ availability: 'unavailable' });
    await expect(host.load(BROWSER_MODEL)).rejects.toMatchObject({
      name: 'BrowserModelUnavailableError',
      message: expect.stringContaining('unavailable on this device'),
    });
  });
});

describe('planning with the browser model', () => {
  it('writes a plan under the schema, streams its steps before the end, and reuses the prompt prefix for a second question', async () => {
    const { host, record } = setup({ chunkDelayMs: 1 });
    await host.load(BROWSER_MODEL);
    const first = await plan(host, request('Add two numbers in python.'));
    expect(first.error).toBeUndefined();
    const response = first.response as PlanResponse;
    expect(validatePlan(response.plan, { workerIds: ['w1', 'w2'], maxSteps: 3 }).ok).toBe(true);
    const kinds = first.events.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'step').length).toBe(response.plan.steps.length);
    // A step arrived while tokens were still coming.
    expect(kinds.lastIndexOf('token')).toBeGreaterThan(kinds.indexOf('step'));
    expect(record.prompts[0]).toMatchObject({ constrained: true, cloned: true });

    const second = await plan(host, request('Why is the sky blue?'));
    expect(second.error).toBeUndefined();
    // One session holds the system prompt and the few-shots; each question is prompted on a clone of it.
    expect(record.creates).toHaveLength(1);
    expect(record.clones).toBe(2);
    // The kept prefix (system prompt, few-shots, pool) counts as cached: the same for both questions.
    const stats = (second.response as PlanResponse).stats;
    expect(stats.cachedPromptTokens).toBeGreaterThan(stats.promptTokens / 2);
    expect(stats.cachedPromptTokens).toBe((first.response as PlanResponse).stats.cachedPromptTokens);
    expect(record.prompts[1]?.input).toBe('Why is the sky blue?');
    // It prefills the question alone: the schema's description is not input again with every question.
    expect(stats.promptTokens - stats.cachedPromptTokens!).toBeLessThan(stats.promptTokens / 10);
  });

  it('stops when cancelled', async () => {
    const { host } = setup({ chunkDelayMs: 20 });
    await host.load(BROWSER_MODEL);
    const controller = new AbortController();
    let tokens = 0;
    const running = host.plan({ ...request('Add two numbers.'), signal: controller.signal }, (event) => {
      if (event.kind === 'token' && ++tokens === 3) controller.abort();
    });
    await expect(running).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(tokens).toBeLessThan(6);
  });

  it('a question over the context window moves to the engine the user allowed next, saying why', async () => {
    const { host, record } = setup({ contextWindow: 1200 });
    await host.load(BROWSER_MODEL);
    const long = `Summarise this: ${'lorem ipsum dolor sit amet '.repeat(200)}`;
    const result = await plan(host, request(long, { fallback: CPU }));
    expect(result.error).toBeUndefined();
    const response = result.response as PlanResponse;
    expect(response.plan.steps).toEqual([{ worker: 'w2', task: 'answer it', sees: [] }]);
    expect(response.handedOver?.to).toEqual(CPU);
    const restart = result.events.find((e) => e.kind === 'restart');
    expect(restart).toMatchObject({ kind: 'restart', kept: 0 });
    expect(restart?.kind === 'restart' && restart.reason).toMatch(
      /do not fit .*it takes 1200\. Planning moves to tiny on the CPU/,
    );
    // Measured before prompting: nothing was generated by the browser model.
    expect(record.prompts).toEqual([]);
  });

  it('without an engine allowed next, a question over the window fails clearly', async () => {
    const { host } = setup({ contextWindow: 1200 });
    await host.load(BROWSER_MODEL);
    const long = `Summarise this: ${'lorem ipsum dolor sit amet '.repeat(200)}`;
    const result = await plan(host, request(long));
    expect(result.error?.name).toBe('InputTooLongError');
    expect(result.error?.message).toMatch(
      /do not fit Chrome's built-in model \(Gemini Nano\): they need \d+ tokens and it takes 1200\./,
    );
  });

  it('a language the model does not read moves to the engine allowed next', async () => {
    const { host } = setup();
    await host.load(BROWSER_MODEL);
    const result = await plan(host, request('Почему небо голубое?', { fallback: CPU }));
    expect(result.error).toBeUndefined();
    expect(result.response?.handedOver?.reason).toMatch(
      /does not take this input.*English, Spanish and Japanese/,
    );
  });

  it('a session destroyed mid-plan: the steps already streamed stand and a new session writes the rest', async () => {
    const { host, record } = setup({ chunkDelayMs: 0, loseSessionAfterChunks: 20 });
    await host.load(BROWSER_MODEL);
    const result = await plan(host, request('Add two numbers in python.'));
    expect(result.error).toBeUndefined();
    const response = result.response as PlanResponse;
    const restart = result.events.find((e) => e.kind === 'restart');
    expect(restart?.kind === 'restart' && restart.reason).toMatch(/ended the model's session.*new session/);
    expect(response.handedOver?.to).toEqual(BROWSER_MODEL);
    // The lost session's prefix was made again for the new one.
    expect(record.creates).toHaveLength(2);
    // Everything streamed is the plan, in order.
    const streamed = result.events.flatMap((e) => (e.kind === 'step' ? [e.step] : []));
    expect(streamed).toEqual(response.plan.steps);
    expect(validatePlan(response.plan, { workerIds: ['w1', 'w2'], maxSteps: 3 }).ok).toBe(true);
  });
});
