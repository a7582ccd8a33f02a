/**
 * The local planner engine (workers/engines/local-server.ts) against the test provider over real HTTP: the
 * scripted planner model answers a `response_format` json_schema request with a plan, as Ollama or
 * llama.cpp server would with a real model. The engine host plans with it as with the on-device engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/shared/engine-errors.ts';
import type { ModelRef } from '../../../../src/shared/model.ts';
import { parsePlan, planJsonSchema } from '../../../../src/shared/plan/index.ts';
import { EngineHost } from '../../../../workers/engine-host.ts';
import type { GenerateRequest } from '../../../../workers/engines/engine.ts';
import {
  createLocalServerEngine,
  listServerModels,
  serverReady,
} from '../../../../workers/engines/local-server.ts';
import {
  PLANNER_MODEL_ID,
  PLANNER_PROSE,
  PLANNER_TASKS,
  plannerModel,
  requestedSchema,
} from '../../../provider/planner-model.ts';
import { startProvider, type TestProvider } from '../../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({
    cors: 'strict',
    models: [
      plannerModel(),
      // Long and slow enough to cancel in the middle.
      {
        id: 'slow-words',
        behaviour: { kind: 'fixed', text: 'word '.repeat(200) },
        latency: { firstTokenMs: 0, perTokenMs: 20 },
      },
    ],
  });
});
afterAll(() => provider.close());

const planner = (): Extract<ModelRef, { engine: 'local-server' }> => ({
  engine: 'local-server',
  baseURL: provider.baseURL,
  model: PLANNER_MODEL_ID,
  server: 'ollama',
});

const schema = () => planJsonSchema({ workerIds: ['w1', 'w2'], maxSteps: 3, requireThought: true });

function request(overrides: Partial<GenerateRequest> = {}): GenerateRequest & { tokens: string[] } {
  const tokens: string[] = [];
  return {
    messages: [
      { role: 'system', content: 'You are the conductor.' },
      { role: 'user', content: 'What is 2+2?' },
    ],
    maxTokens: 512,
    temperature: 0,
    signal: new AbortController().signal,
    onToken: (text) => tokens.push(text),
    tokens,
    ...overrides,
  };
}

const realFetch: typeof fetch = (input, init) => fetch(input, init);

/** Records every URL the engine asks for, then fetches it for real. */
function recordingFetch() {
  const urls: string[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return fetch(input, init);
  };
  return { urls, fetchImpl };
}

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('local server engine', () => {
  it('streams a plan written under the JSON schema it sends as response_format', async () => {
    const engine = createLocalServerEngine({ fetch: realFetch });
    await engine.load(planner(), () => {});
    expect(engine.loaded()).toEqual(planner());
    provider.clearRequests();
    const req = request({ jsonSchema: schema() });
    const result = await engine.generate(req);

    expect(req.tokens.length).toBeGreaterThan(5);
    expect(req.tokens.join('')).toBe(result.text);
    const parsed = parsePlan(result.text, { workerIds: ['w1', 'w2'], maxSteps: 3 });
    expect(parsed.ok && parsed.plan.steps).toEqual([
      { worker: 'w1', task: PLANNER_TASKS.answer, sees: [] },
      { worker: 'w2', task: PLANNER_TASKS.check, sees: [0] },
    ]);
    expect(result.finishReason).toBe('stop');
    expect(result.promptTokens).toBeGreaterThan(0);
    expect(result.completionTokens).toBe(req.tokens.length);

    const sent = provider.requests.find((r) => r.path === '/v1/chat/completions');
    expect(sent?.body).toMatchObject({
      model: PLANNER_MODEL_ID,
      stream: true,
      response_format: { type: 'json_schema', json_schema: { name: 'plan', strict: true } },
    });
    expect(requestedSchema(sent?.body)).toEqual(schema());
    // Nothing but what a strict preflight allows, and nothing that names this machine or the SDK.
    expect(Object.keys(sent?.headers ?? {}).filter((h) => h.startsWith('x-'))).toEqual([]);
    expect(sent?.headers.authorization).toBeUndefined();
  });

  it('answers without a schema as plain chat (the planner then writes prose, not a plan)', async () => {
    const engine = createLocalServerEngine({ fetch: realFetch });
    await engine.load(planner(), () => {});
    const result = await engine.generate(request());
    expect(result.text).toBe(PLANNER_PROSE);
    expect(parsePlan(result.text, { workerIds: ['w1', 'w2'], maxSteps: 3 }).ok).toBe(false);
  });

  it('plans through the engine host like the on-device engines, steps streamed as they close', async () => {
    const host = new EngineHost(async () => createLocalServerEngine({ fetch: realFetch }));
    await host.load(planner());
    const steps: number[] = [];
    const response = await host.plan(
      {
        question: 'What is 2+2?',
        mode: 'conductor',
        pool: [
          { id: 'w1', label: 'Drafter', strengths: 'writes' },
          { id: 'w2', label: 'Checker', strengths: 'checks' },
        ],
        maxDepth: 0,
      },
      (event) => {
        if (event.kind === 'step') steps.push(event.index);
      },
    );
    expect(steps).toEqual([0, 1]);
    expect(response.plan.steps.map((s) => s.worker)).toEqual(['w1', 'w2']);
    expect(response.repaired).toBeUndefined();
    expect(response.fallback).toBeUndefined();
  });

  it('stops the request when cancelled: the stream ends early and the result says abort', async () => {
    const engine = createLocalServerEngine({ fetch: realFetch });
    await engine.load({ ...planner(), model: 'slow-words' }, () => {});
    const controller = new AbortController();
    const req = request({
      signal: controller.signal,
      onToken: (text) => {
        req.tokens.push(text);
        if (req.tokens.length === 3) controller.abort();
      },
    });
    const result = await engine.generate(req);
    expect(result.finishReason).toBe('abort');
    expect(req.tokens.length).toBeLessThan(20);

    // interrupt() is the host's soft stop: the same for a request without its own signal.
    const second = request({
      onToken: (text) => {
        second.tokens.push(text);
        if (second.tokens.length === 3) engine.interrupt();
      },
    });
    expect((await engine.generate(second)).finishReason).toBe('abort');
    expect(second.tokens.length).toBeLessThan(20);
  });

  it('refuses any URL that is not this machine, before sending anything', async () => {
    const { urls, fetchImpl } = recordingFetch();
    const engine = createLocalServerEngine({ fetch: fetchImpl });
    for (const baseURL of [
      'http://localhost.evil.com/v1',
      'http://localhost@evil.com/v1',
      'http://10.0.0.5:11434/v1',
      'https://api.openai.com/v1',
      'http://[::2]:8080/v1',
      'file:///etc/passwd',
    ]) {
      const error = await failure(engine.load({ ...planner(), baseURL }, () => {}));
      expect(error.name, baseURL).toBe('InvalidModelError');
      expect(error.message, baseURL).toMatch(/must (run on this machine|be an http\(s\) URL)/);
    }
    await expect(listServerModels('http://192.168.1.20:11434/v1', fetchImpl)).rejects.toThrow(
      /must run on this machine/,
    );
    expect(urls).toEqual([]);
    expect(engine.loaded()).toBeUndefined();
  });

  it('names what went wrong: no server there, a model the server lacks, a server error', async () => {
    const engine = createLocalServerEngine({ fetch: realFetch, connectTimeoutMs: 5000 });
    const down = await failure(engine.load({ ...planner(), baseURL: 'http://127.0.0.1:1/v1' }, () => {}));
    expect(down.name).toBe('ServerUnreachableError');
    expect(down.message).toContain('http://127.0.0.1:1 did not answer');
    expect(down.message).toContain('CORS');
    expect(down.suggestions).toEqual(['server-setup', 'retry', 'cpu']);

    const missing = await failure(engine.load({ ...planner(), model: 'qwen2.5:32b' }, () => {}));
    expect(missing.name).toBe('InvalidModelError');
    expect(missing.message).toContain('has no model "qwen2.5:32b"; it has: ');
    expect(missing.message).toContain(PLANNER_MODEL_ID);

    const wrongBase = await failure(engine.load({ ...planner(), baseURL: provider.url }, () => {}));
    expect(wrongBase.name).toBe('InvalidModelError');
    expect(wrongBase.message).toContain('usually ends in /v1');

    // A redirect is not followed (a 307 would carry the prompt to wherever it points).
    await engine.load({ ...planner(), model: 'fault:307' }, () => {});
    provider.clearRequests();
    const redirected = await failure(engine.generate(request({ jsonSchema: schema() })));
    expect(redirected.name).toBe('EngineFailure');
    expect(redirected.message).toContain('answered with a redirect (HTTP 307): Baton does not follow it');
    expect(provider.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);

    await engine.load({ ...planner(), model: 'fault:500' }, () => {});
    const broken = await failure(engine.generate(request({ jsonSchema: schema() })));
    expect(broken.name).toBe('EngineFailure');
    expect(broken.message).toContain('HTTP 500');
  });

  it('lists the models the server has', async () => {
    const ids = await listServerModels(provider.baseURL, realFetch);
    expect(ids).toContain(PLANNER_MODEL_ID);
    expect(ids).toContain('echo');
  });

  it('is ready with nothing to download when the server answers with the model (a saved choice reloads then)', async () => {
    expect(await serverReady(planner(), realFetch)).toBe(true);
    expect(await serverReady({ ...planner(), model: 'absent' }, realFetch)).toBe(false);
    expect(await serverReady({ ...planner(), baseURL: 'http://127.0.0.1:1/v1' }, realFetch)).toBe(false);
  });
});
