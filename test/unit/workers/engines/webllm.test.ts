import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { EngineError, suggestionsFor } from '../../../../src/shared/engine-errors.ts';
import type { GenerateRequest, LoadProgress, ModelRef } from '../../../../workers/engines/engine.ts';
import {
  createWebLlmEngine,
  mapInitProgress,
  toEngineError,
  type WebLlmDeps,
  webLlmCacheStatus,
  webLlmDeleteCache,
} from '../../../../workers/engines/webllm.ts';
import {
  DEVICE_LOST_MESSAGE,
  FakeCache,
  FakeMlcEngine,
  type FakeScript,
  webLlmError,
} from './webllm-fake.ts';

const MB = 1024 * 1024;
const QWEN3: ModelRef = { engine: 'webllm', modelId: 'Qwen3-4B-q4f32_1-MLC' };
const QWEN25: ModelRef = { engine: 'webllm', modelId: 'Qwen2.5-3B-Instruct-q4f32_1-MLC' };

function setup(script: FakeScript = {}, extra: Partial<WebLlmDeps> = {}) {
  const engines: FakeMlcEngine[] = [];
  const cache = new FakeCache();
  const engine = createWebLlmEngine({
    createEngine: (config) => {
      const fake = new FakeMlcEngine(config, script);
      engines.push(fake);
      return fake;
    },
    cache,
    prebuiltModels: () => prebuiltAppConfig.model_list,
    ...extra,
  });
  return { engine, cache, engines, fake: () => engines[0] as FakeMlcEngine };
}

function request(overrides: Partial<GenerateRequest> = {}): GenerateRequest & { tokens: string[] } {
  const tokens: string[] = [];
  return {
    messages: [
      { role: 'system', content: 'Plan.' },
      { role: 'user', content: 'What is 2+2?' },
    ],
    maxTokens: 256,
    temperature: 0.2,
    signal: new AbortController().signal,
    onToken: (t) => tokens.push(t),
    tokens,
    ...overrides,
  };
}

describe('mapInitProgress (web-llm 0.2.86 report formats)', () => {
  it('derives bytes, total, speed and time left from a download report', () => {
    const p = mapInitProgress({
      progress: 0.25,
      timeElapsed: 10,
      text:
        'Fetching param cache[12/50]: 300MB fetched. 25% completed, 10 secs elapsed. It can take a while when we ' +
        'first visit this page to populate the cache. Later refreshes will become faster.',
    });
    expect(p.phase).toBe('download');
    expect(p.fraction).toBe(0.25);
    expect(p.loadedBytes).toBe(300 * MB);
    expect(p.totalBytes).toBe(1200 * MB);
    expect(p.bytesPerSecond).toBe(30 * MB);
    expect(p.secondsLeft).toBeCloseTo(30, 6);
    expect(p.elapsedSeconds).toBe(10);
  });

  it('names the cache, compile and init phases', () => {
    expect(
      mapInitProgress({
        progress: 0.5,
        timeElapsed: 2,
        text: 'Loading model from cache[25/50]: 600MB loaded. 50% completed, 2 secs elapsed.',
      }),
    ).toMatchObject({ phase: 'cache', loadedBytes: 600 * MB, totalBytes: 1200 * MB });
    expect(
      mapInitProgress({
        progress: 0.1,
        timeElapsed: 1,
        text: 'Loading GPU shader modules[12/120]: 10% completed, 1 secs elapsed.',
      }).phase,
    ).toBe('compile');
    expect(mapInitProgress({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' })).toMatchObject({
      phase: 'download',
      fraction: 0,
    });
    const done = mapInitProgress({ progress: 1, timeElapsed: 30, text: 'Finish loading on WebGPU - nvidia' });
    expect(done).toMatchObject({ phase: 'init', fraction: 1 });
    expect(done.bytesPerSecond).toBeUndefined();
  });

  it('does not invent a total or a speed before anything arrived', () => {
    const p = mapInitProgress({
      progress: 0,
      timeElapsed: 0,
      text: 'Fetching param cache[0/50]: 0MB fetched. 0% completed, 0 secs elapsed.',
    });
    expect(p.totalBytes).toBeUndefined();
    expect(p.bytesPerSecond).toBeUndefined();
    expect(p.secondsLeft).toBeUndefined();
  });
});

describe('createWebLlmEngine: load', () => {
  it('sets cacheBackend explicitly, reloads the model and streams mapped progress', async () => {
    const { engine, fake } = setup({ shards: 4, totalBytes: 400 * MB });
    const progress: LoadProgress[] = [];
    await engine.load(QWEN3, (p) => progress.push(p));
    expect(fake().reloads).toEqual(['Qwen3-4B-q4f32_1-MLC']);
    expect(fake().appConfigs[0]?.cacheBackend).toBe('cache');
    expect(fake().appConfigs[0]?.model_list.length).toBe(prebuiltAppConfig.model_list.length);
    expect(engine.loaded()).toEqual(QWEN3);
    const downloads = progress.filter((p) => p.phase === 'download' && p.loadedBytes !== undefined);
    expect(downloads.map((p) => p.loadedBytes)).toEqual([100 * MB, 200 * MB, 300 * MB, 400 * MB]);
    expect(downloads.every((p) => p.totalBytes === 400 * MB)).toBe(true);
    expect(downloads[0]?.bytesPerSecond).toBe(20 * MB);
    expect(downloads[0]?.secondsLeft).toBe(15);
    expect(progress.map((p) => p.phase)).toContain('compile');
    expect(progress.at(-1)).toMatchObject({ phase: 'init', fraction: 1 });
  });

  it('does not reload the model that is already loaded, and reloads for another', async () => {
    const { engine, fake, engines } = setup();
    await engine.load(QWEN3, () => {});
    await engine.load(QWEN3, () => {});
    await engine.load(QWEN25, () => {});
    expect(engines).toHaveLength(1);
    expect(fake().reloads).toEqual([
      QWEN3.engine === 'webllm' && QWEN3.modelId,
      'Qwen2.5-3B-Instruct-q4f32_1-MLC',
    ]);
  });

  it('can use another cache backend when asked', async () => {
    const { engine, fake } = setup({}, { cacheBackend: 'indexeddb' });
    await engine.load(QWEN25, () => {});
    expect(fake().appConfigs[0]?.cacheBackend).toBe('indexeddb');
  });

  it('adds a custom model by absolute URLs and rejects relative ones', async () => {
    const { engine, fake } = setup();
    const custom: ModelRef = {
      engine: 'webllm',
      modelId: 'My-Planner-q4f32_1-MLC',
      modelUrl: 'https://huggingface.co/me/My-Planner-q4f32_1-MLC',
      modelLibUrl: 'https://example.org/libs/My-Planner-webgpu.wasm',
    };
    await engine.load(custom, () => {});
    const record = fake()
      .appConfigs.at(-1)
      ?.model_list.find((r) => r.model_id === 'My-Planner-q4f32_1-MLC');
    expect(record).toEqual({
      model_id: 'My-Planner-q4f32_1-MLC',
      model: 'https://huggingface.co/me/My-Planner-q4f32_1-MLC',
      model_lib: 'https://example.org/libs/My-Planner-webgpu.wasm',
    });
    const relative = { ...custom, modelId: 'Other', modelUrl: '/models/other' };
    await expect(engine.load(relative, () => {})).rejects.toMatchObject({
      name: 'InvalidModelError',
      message: expect.stringContaining('absolute URL'),
    });
    const half = { engine: 'webllm' as const, modelId: 'Half', modelUrl: 'https://huggingface.co/me/half' };
    await expect(engine.load(half, () => {})).rejects.toMatchObject({ name: 'InvalidModelError' });
  });

  it('refuses a wllama model', async () => {
    const { engine } = setup();
    await expect(
      engine.load({ engine: 'wllama', url: 'https://x.test/m.gguf' }, () => {}),
    ).rejects.toMatchObject({
      name: 'InvalidModelError',
    });
  });

  it('turns an unknown model id into InvalidModelError', async () => {
    const { engine } = setup();
    await expect(
      engine.load({ engine: 'webllm', modelId: 'No-Such-Model-MLC' }, () => {}),
    ).rejects.toMatchObject({
      name: 'InvalidModelError',
      suggestion: 'pick-model',
    });
  });
});

describe('createWebLlmEngine: failures', () => {
  it('maps a lost device during load to DeviceLostError, offers reload, and loads again next time', async () => {
    const { engine, fake } = setup({
      reloadError: () => webLlmError('DeviceLostError', DEVICE_LOST_MESSAGE),
      reloadErrorOn: 1,
    });
    const error = await engine.load(QWEN3, () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ name: 'DeviceLostError', suggestion: 'reload' });
    expect((error as EngineError).suggestions).toEqual(['reload', 'smaller-model', 'cpu']);
    expect((error as Error).message).toMatch(/GPU stopped working while loading Qwen3-4B-q4f32_1-MLC/);
    expect((error as Error).message).toMatch(/smaller one|CPU engine/);
    expect(engine.loaded()).toBeUndefined();
    await engine.load(QWEN3, () => {});
    expect(fake().reloads).toHaveLength(2);
    expect(engine.loaded()).toEqual(QWEN3);
  });

  it('maps a lost device during generation and forgets the model', async () => {
    const { engine } = setup({
      tokens: ['{"st', 'eps"', ':[]}'],
      streamErrorAfter: 1,
      streamError: () =>
        new Error('Device was lost. This can happen due to insufficient memory or other GPU constraints.'),
    });
    await engine.load(QWEN3, () => {});
    const r = request();
    await expect(engine.generate(r)).rejects.toMatchObject({ name: 'DeviceLostError' });
    expect(r.tokens).toEqual(['{"st']);
    expect(engine.loaded()).toBeUndefined();
    await expect(engine.generate(request())).rejects.toMatchObject({
      message: expect.stringMatching(/load one first/),
    });
  });

  it('maps out-of-memory to OutOfMemoryError offering a smaller model', async () => {
    const { engine } = setup({
      reloadError: () => new Error('GPUOutOfMemoryError: Out of memory while allocating buffer'),
    });
    await expect(engine.load(QWEN3, () => {})).rejects.toMatchObject({
      name: 'OutOfMemoryError',
      suggestion: 'smaller-model',
      message: expect.stringContaining('does not fit'),
    });
  });

  it('maps an offline download (TypeError: Failed to fetch) to ModelFetchError offering the CPU engine', async () => {
    const { engine } = setup({ reloadError: () => new TypeError('Failed to fetch') });
    const error = (await engine.load(QWEN25, () => {}).catch((e: unknown) => e)) as EngineError;
    expect(error.name).toBe('ModelFetchError');
    expect(error.suggestion).toBe('cpu');
    expect(error.message).toContain('Could not download Qwen2.5-3B-Instruct-q4f32_1-MLC');
    expect(error.message).toContain('Failed to fetch');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it("maps a failed import of web-llm's own code (offline) to ModelFetchError", async () => {
    const { engine } = setup(
      {},
      {
        prebuiltModels: () => {
          throw new TypeError(
            'Failed to fetch dynamically imported module: http://127.0.0.1/assets/index-abc.js',
          );
        },
      },
    );
    await expect(engine.load(QWEN25, () => {})).rejects.toMatchObject({
      name: 'ModelFetchError',
      suggestion: 'cpu',
      message: expect.stringContaining("Could not load the WebLLM engine's code"),
    });
  });

  it('maps missing shader-f16 and WebGPU to errors that offer other models or the CPU', () => {
    const f16 = webLlmError(
      'ShaderF16SupportError',
      'This model requires WebGPU extension shader-f16, which is not enabled in this browser.',
    );
    expect(toEngineError(f16, 'X-q4f16_1-MLC', 'load')).toMatchObject({
      name: 'UnsupportedModelError',
      suggestion: 'smaller-model',
    });
    const noGpu = webLlmError(
      'WebGPUNotAvailableError',
      'WebGPU is not supported in your current environment',
    );
    expect(toEngineError(noGpu, 'X', 'load')).toMatchObject({
      name: 'WebGpuUnavailableError',
      suggestion: 'cpu',
    });
    const other = toEngineError(new Error('something odd'), 'X', 'generate');
    expect(other).toMatchObject({
      name: 'EngineFailure',
      message: 'WebLLM failed while generating: something odd',
    });
  });

  it('suggestions survive a trip through comlink, which keeps only the name', () => {
    expect(suggestionsFor('ModelFetchError')[0]).toBe('cpu');
    expect(suggestionsFor('DeviceLostError')[0]).toBe('reload');
    expect(suggestionsFor('TypeError')).toEqual([]);
  });
});

describe('createWebLlmEngine: generate', () => {
  const schema = {
    type: 'object',
    properties: { steps: { type: 'array', maxItems: 1 } },
    required: ['steps'],
    additionalProperties: false,
  };

  it('sends a streaming, schema-constrained request and streams the tokens', async () => {
    const { engine, fake } = setup({ tokens: ['{"steps"', ': ', '[]', '}'] });
    await engine.load(QWEN25, () => {});
    const r = request({ jsonSchema: schema, maxTokens: 300, temperature: 0.3 });
    const result = await engine.generate(r);
    expect(fake().requests).toHaveLength(1);
    const sent = fake().requests[0];
    expect(sent).toEqual({
      messages: [
        { role: 'system', content: 'Plan.' },
        { role: 'user', content: 'What is 2+2?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.3,
      response_format: { type: 'json_object', schema: JSON.stringify(schema) },
    });
    expect(JSON.parse(sent?.response_format?.schema ?? '')).toEqual(schema);
    expect(r.tokens).toEqual(['{"steps"', ': ', '[]', '}']);
    expect(result).toEqual({
      text: '{"steps": []}',
      promptTokens: 42,
      completionTokens: 4,
      prefillTokensPerSec: 840,
      decodeTokensPerSec: 31.5,
      finishReason: 'stop',
    });
  });

  it('turns thinking off for Qwen3 models and leaves others alone', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3, () => {});
    await engine.generate(request());
    expect(fake().requests[0]?.extra_body).toEqual({ enable_thinking: false });
    expect(fake().requests[0]?.response_format).toBeUndefined();
    await engine.load(QWEN25, () => {});
    await engine.generate(request());
    expect(fake().requests[1]?.extra_body).toBeUndefined();
    // Qwen3.5's conversation template opens a <think> block unless thinking is turned off, listed or not.
    const custom = {
      engine: 'webllm' as const,
      modelId: 'Qwen3.5-27B-q4f16_1-MLC',
      modelUrl: 'https://models.example/Qwen3.5-27B-q4f16_1-MLC',
      modelLibUrl: 'https://models.example/Qwen3.5-27B-q4f16_1-webgpu.wasm',
    };
    for (const model of [{ engine: 'webllm' as const, modelId: 'Qwen3.5-2B-q4f32_1-MLC' }, custom]) {
      await engine.load(model, () => {});
      await engine.generate(request());
      expect(fake().requests.at(-1)?.extra_body, model.modelId).toEqual({ enable_thinking: false });
    }
  });

  it('reports length when max_tokens cuts the answer', async () => {
    const { engine } = setup({ tokens: ['a', 'b', 'c', 'd'] });
    await engine.load(QWEN25, () => {});
    const result = await engine.generate(request({ maxTokens: 2 }));
    expect(result).toMatchObject({ text: 'ab', finishReason: 'length', completionTokens: 2 });
  });

  it('aborting the signal calls interruptGenerate and stops the tokens', async () => {
    const controller = new AbortController();
    const tokens = Array.from({ length: 50 }, (_, i) => `t${i} `);
    const { engine, fake } = setup({ tokens, onDecode: (i) => i === 3 && controller.abort() });
    await engine.load(QWEN25, () => {});
    const r = request({ signal: controller.signal });
    const result = await engine.generate(r);
    expect(fake().interrupts).toBe(1);
    expect(result.finishReason).toBe('abort');
    expect(r.tokens).toEqual(['t0 ', 't1 ', 't2 ']);
    expect(result.text).toBe('t0 t1 t2 ');
  });

  it('interrupt() reaches interruptGenerate while generating, and is a no-op otherwise', async () => {
    const tokens = Array.from({ length: 50 }, (_, i) => `${i},`);
    let engineRef: ReturnType<typeof setup>['engine'] | undefined;
    const { engine, fake } = setup({ tokens, onDecode: (i) => i === 5 && engineRef?.interrupt() });
    engineRef = engine;
    await engine.load(QWEN25, () => {});
    engine.interrupt();
    expect(fake().interrupts).toBe(0);
    const result = await engine.generate(request());
    expect(fake().interrupts).toBe(1);
    expect(result.finishReason).toBe('abort');
    expect(result.completionTokens).toBe(5);
  });

  it('returns at once for an already aborted signal, without calling the model', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN25, () => {});
    const controller = new AbortController();
    controller.abort();
    expect(await engine.generate(request({ signal: controller.signal }))).toMatchObject({
      finishReason: 'abort',
      text: '',
    });
    expect(fake().requests).toHaveLength(0);
  });

  it('refuses a second generation while one runs', async () => {
    const { engine } = setup({ tokens: ['a', 'b', 'c'] });
    await engine.load(QWEN25, () => {});
    const first = engine.generate(request());
    await expect(engine.generate(request())).rejects.toMatchObject({
      message: expect.stringContaining('one plan at a time'),
    });
    await expect(first).resolves.toMatchObject({ text: 'abc' });
  });
});

describe('createWebLlmEngine: cache and unload', () => {
  it('asks web-llm whether a model is cached, with our app config', async () => {
    const { engine, cache } = setup();
    cache.cached.add('Qwen3-4B-q4f32_1-MLC');
    expect(await engine.isCached(QWEN3)).toBe(true);
    expect(await engine.isCached(QWEN25)).toBe(false);
    expect(await engine.isCached({ engine: 'webllm', modelId: 'Unknown-MLC' })).toBe(false);
    expect(cache.calls[0]).toMatchObject({ op: 'has', modelId: 'Qwen3-4B-q4f32_1-MLC' });
    expect(cache.calls[0]?.appConfig?.cacheBackend).toBe('cache');
  });

  it('deletes a cached model, unloading it first if it is loaded', async () => {
    const { engine, cache, fake } = setup();
    cache.cached.add('Qwen3-4B-q4f32_1-MLC');
    await engine.load(QWEN3, () => {});
    await engine.deleteCached(QWEN3);
    expect(fake().unloads).toBe(1);
    expect(engine.loaded()).toBeUndefined();
    expect(await engine.isCached(QWEN3)).toBe(false);
    expect(cache.calls.find((c) => c.op === 'delete')).toMatchObject({ modelId: 'Qwen3-4B-q4f32_1-MLC' });
  });

  it('unload releases the model', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN25, () => {});
    await engine.unload();
    expect(fake().unloads).toBe(1);
    expect(engine.loaded()).toBeUndefined();
  });
});

describe('module-level cache helpers (what the worker calls)', () => {
  it('reports and deletes through web-llm cache functions', async () => {
    const cache = new FakeCache();
    const deps = { cache, prebuiltModels: () => prebuiltAppConfig.model_list };
    cache.cached.add('Qwen3-4B-q4f32_1-MLC');
    expect(await webLlmCacheStatus(QWEN3, deps)).toEqual({ cached: true });
    expect(await webLlmDeleteCache(QWEN3, deps)).toBe(true);
    expect(await webLlmCacheStatus(QWEN3, deps)).toEqual({ cached: false });
    expect(await webLlmDeleteCache(QWEN3, deps)).toBe(false);
  });
});
