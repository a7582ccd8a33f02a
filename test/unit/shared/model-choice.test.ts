import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { Capabilities, GpuInfo } from '../../../src/shared/capabilities.ts';
import {
  chooseConductorModel,
  conductorModelInfo,
  DEFAULT_WLLAMA_MODEL,
  listConductorModels,
  modelOptionLabel,
  QWEN35_WLLAMA_MODEL,
  thinksAloud,
} from '../../../src/shared/model-choice.ts';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** The adapter headless Chromium gives here with --enable-unsafe-webgpu (measured on this machine). */
const swiftShader: GpuInfo = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: '',
  description: '',
  isFallbackAdapter: true,
  shaderF16: false,
  maxStorageBufferBindingSize: GiB,
  maxBufferSize: GiB,
  maxComputeWorkgroupStorageSize: 32768,
  features: ['subgroups', 'timestamp-query', 'float32-filterable'],
};

const discreteF16: GpuInfo = {
  vendor: 'nvidia',
  architecture: 'ampere',
  device: '',
  description: 'NVIDIA GeForce RTX 3060',
  isFallbackAdapter: false,
  shaderF16: true,
  maxStorageBufferBindingSize: 2 * GiB,
  maxBufferSize: 2 * GiB,
  maxComputeWorkgroupStorageSize: 32768,
  features: ['shader-f16', 'subgroups'],
};

const integratedNoF16: GpuInfo = {
  ...discreteF16,
  vendor: 'intel',
  description: 'Intel UHD',
  shaderF16: false,
  features: [],
};

function caps(gpu: GpuInfo | undefined, deviceMemoryGiB?: number): Capabilities {
  const c: Capabilities = {
    webgpu: gpu
      ? { available: true, gpu }
      : {
          available: false,
          reason: 'no-api',
          message: 'This browser has no WebGPU (navigator.gpu is missing).',
        },
    crossOriginIsolated: true,
    hardwareConcurrency: 8,
  };
  if (deviceMemoryGiB !== undefined) c.deviceMemoryGiB = deviceMemoryGiB;
  return c;
}

function chosenId(choice: ReturnType<typeof chooseConductorModel>): string {
  const model = choice.model;
  if (model.engine === 'local-server') return `local-server:${model.baseURL}`;
  if (model.engine === 'prompt-api') return 'prompt-api';
  return model.engine === 'webllm' ? model.modelId : `wllama:${model.url}`;
}

describe('the candidate table', () => {
  it('matches web-llm prebuiltAppConfig (ids, vram_required_MB, low_resource_required, features, buffers)', () => {
    const byId = new Map(prebuiltAppConfig.model_list.map((r) => [r.model_id, r]));
    const table = listConductorModels();
    expect(table.length).toBeGreaterThanOrEqual(12);
    for (const m of table) {
      const record = byId.get(m.modelId);
      expect(record, `${m.modelId} is not in web-llm's prebuilt list`).toBeDefined();
      expect(m.vramMB, m.modelId).toBe(record?.vram_required_MB);
      expect(m.lowResource, m.modelId).toBe(record?.low_resource_required ?? false);
      expect([...m.requiredFeatures], m.modelId).toEqual(record?.required_features ?? []);
      expect(m.bufferSizeRequiredBytes, m.modelId).toBe(record?.buffer_size_required_bytes);
      expect(m.modelId).toContain(m.quantization);
    }
  });

  it('lists every Qwen3.5 q4 build web-llm ships (so an upgrade that adds one is noticed)', () => {
    const shipped = prebuiltAppConfig.model_list
      .map((r) => r.model_id)
      .filter((id) => /^Qwen3\.5-.*-q4f(16|32)_1-MLC$/.test(id));
    expect(shipped.length).toBeGreaterThanOrEqual(8);
    const listed = new Set(listConductorModels().map((m) => m.modelId));
    for (const id of shipped) expect(listed, id).toContain(id);
    for (const m of listConductorModels())
      if (/^Qwen3/.test(m.modelId)) expect(m.thinking, m.modelId).toBe(true);
  });

  it('lists each candidate in both quantizations, best planner first', () => {
    const ids = listConductorModels().map((m) => m.modelId);
    expect(ids[0]).toBe('Qwen3.5-9B-q4f16_1-MLC');
    expect(ids.indexOf('Qwen3.5-4B-q4f16_1-MLC')).toBeLessThan(ids.indexOf('Qwen3-4B-q4f16_1-MLC'));
    expect(ids).toContain('Qwen2.5-3B-Instruct-q4f32_1-MLC');
    expect(ids).toContain('Llama-3.2-1B-Instruct-q4f32_1-MLC');
    expect(ids).toContain('Qwen2.5-0.5B-Instruct-q4f16_1-MLC');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has an absolute GGUF URL for the CPU default and for Qwen3.5 on the CPU', () => {
    for (const model of [DEFAULT_WLLAMA_MODEL, QWEN35_WLLAMA_MODEL]) {
      expect(new URL(model.url).protocol).toBe('https:');
      expect(model.url).toMatch(/\.gguf$/);
    }
  });

  it('offers Qwen3.5 0.8B on the CPU beside the CPU default, whatever the device', () => {
    for (const c of [caps(undefined), caps(swiftShader, 16), caps(discreteF16)]) {
      const choice = chooseConductorModel(c);
      expect([choice.model, ...choice.alternatives]).toContainEqual(QWEN35_WLLAMA_MODEL);
      expect([choice.model, ...choice.alternatives]).toContainEqual(DEFAULT_WLLAMA_MODEL);
    }
  });
});

describe('chooseConductorModel', () => {
  const table: Array<[string, Capabilities, { vramBudgetMB?: number } | undefined, string]> = [
    ['f16 GPU, 4 GB default budget', caps(discreteF16), undefined, 'Qwen3.5-4B-q4f16_1-MLC'],
    [
      'f16 GPU, 8 GB budget (the 9B is never recommended)',
      caps(discreteF16, 16),
      undefined,
      'Qwen3.5-4B-q4f16_1-MLC',
    ],
    ['f16 GPU, 3.5 GB budget', caps(discreteF16), { vramBudgetMB: 3500 }, 'Qwen3-4B-q4f16_1-MLC'],
    ['f16 GPU, 3 GB budget', caps(discreteF16), { vramBudgetMB: 3072 }, 'Qwen3.5-2B-q4f16_1-MLC'],
    ['f16 GPU, 1 GB budget', caps(discreteF16), { vramBudgetMB: 1024 }, 'Llama-3.2-1B-Instruct-q4f16_1-MLC'],
    ['no f16, 4 GB budget', caps(integratedNoF16), undefined, 'Qwen3.5-2B-q4f32_1-MLC'],
    ['no f16, 8 GB device memory', caps(integratedNoF16, 16), undefined, 'Qwen3.5-4B-q4f32_1-MLC'],
    ['no f16, 4 GB device memory', caps(integratedNoF16, 4), undefined, 'Qwen2.5-1.5B-Instruct-q4f32_1-MLC'],
    [
      'no f16, 1.1 GB budget',
      caps(integratedNoF16),
      { vramBudgetMB: 1100 },
      'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
    ],
  ];
  it.each(table)('%s', (_name, c, options, expected) => {
    const choice = chooseConductorModel(c, options);
    expect(chosenId(choice)).toBe(expected);
    expect(choice.softwareAdapter).toBe(false);
    expect(choice.reason).toContain(expected);
  });

  it('explains a pick without shader-f16 and over budget', () => {
    const choice = chooseConductorModel(caps(integratedNoF16), { vramBudgetMB: 2560 });
    expect(chosenId(choice)).toBe('Qwen2.5-1.5B-Instruct-q4f32_1-MLC');
    expect(choice.reason).toMatch(/^No shader-f16 on this GPU, so q4f32_1/);
    expect(choice.reason).toContain('Qwen3 4B needs 4.23 GB');
    expect(choice.reason).toContain('Qwen3.5 2B needs 2.53 GB');
    expect(choice.reason).toContain('over your 2.50 GB budget');
    expect(choice.reason).toContain('chose Qwen2.5 1.5B Instruct');
    expect(choice.reason).not.toContain('9B');
    expect(choice.alternatives.at(-1)).toEqual(DEFAULT_WLLAMA_MODEL);
    expect(choice.alternatives[0]).toEqual({
      engine: 'webllm',
      modelId: 'Qwen3.5-0.8B-q4f32_1-MLC',
    });
  });

  it('never picks a q4f16 model without shader-f16, whatever the budget', () => {
    for (const budget of [900, 1500, 2500, 5000, 100_000]) {
      const choice = chooseConductorModel(caps(integratedNoF16), { vramBudgetMB: budget });
      if (choice.model.engine === 'webllm') expect(choice.model.modelId).toContain('q4f32_1');
    }
  });

  it('recommends the CPU engine on SwiftShader, and still names the q4f32 model WebGPU would use', () => {
    const choice = chooseConductorModel(caps(swiftShader, 16));
    expect(choice.softwareAdapter).toBe(true);
    expect(choice.model).toEqual(DEFAULT_WLLAMA_MODEL);
    expect(choice.webgpuModel?.quantization).toBe('q4f32_1');
    expect(choice.alternatives[0]).toEqual({ engine: 'webllm', modelId: choice.webgpuModel?.modelId });
    expect(choice.reason).toMatch(/software renderer \(SwiftShader/);
    expect(choice.reason).toContain('CPU engine');
    expect(choice.reason).toContain('No shader-f16');
  });

  it('uses the CPU engine without WebGPU and says why, without repeating the capability warning', () => {
    const noGpu = caps(undefined);
    const choice = chooseConductorModel(noGpu);
    expect(choice.model).toEqual(DEFAULT_WLLAMA_MODEL);
    expect(choice.reason).toMatch(/^No WebGPU here, so the CPU engine \(wllama\)/);
    // The capability panel beside it already shows the probe's message; the Start card showed it twice.
    if (noGpu.webgpu.available) throw new Error('unreachable');
    expect(choice.reason).not.toContain(noGpu.webgpu.message);
    expect(choice.reason).not.toContain('navigator.gpu');
    expect(choice.webgpuModel).toBeUndefined();
    expect(choice.byHand).toEqual([]);
  });

  it('on a software adapter offers WebGPU only for models of 1B parameters or fewer, smallest first', () => {
    const choice = chooseConductorModel(caps(swiftShader, 16));
    const offered = [...choice.alternatives, ...choice.byHand];
    expect(offered.length).toBeGreaterThan(0);
    for (const ref of offered) {
      if (ref.engine === 'wllama') continue;
      expect(ref.engine).toBe('webllm');
      const info = listConductorModels().find((m) => ref.engine === 'webllm' && m.modelId === ref.modelId);
      expect(info?.paramsB).toBeLessThanOrEqual(1);
    }
    expect(choice.byHand).toEqual([]);
    expect(choice.webgpuModel?.modelId).toBe('Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
    // The 4 GB trap the Start card used to suggest on SwiftShader.
    expect(choice.reason).not.toMatch(/Qwen3 4B|4\.23 GB|Chose/);
    expect(choice.reason).toContain('Qwen2.5 0.5B Instruct (1.04 GB)');
  });

  it('on a real GPU still lets the user pick, by hand, models over the budget it can run', () => {
    const choice = chooseConductorModel(caps(discreteF16), { vramBudgetMB: 3000 });
    const ids = choice.byHand.map((ref) =>
      ref.engine === 'webllm' ? ref.modelId : ref.engine === 'wllama' ? ref.url : ref.engine,
    );
    // The 9B is never recommended (it plans at half a 4B's speed) but stays a choice by hand.
    expect(ids).toEqual(['Qwen3.5-9B-q4f16_1-MLC', 'Qwen3.5-4B-q4f16_1-MLC', 'Qwen3-4B-q4f16_1-MLC']);
  });

  it('uses the CPU engine when the adapter is below what web-llm requests', () => {
    const small = chooseConductorModel(caps({ ...discreteF16, maxStorageBufferBindingSize: 64 * MiB }));
    expect(small.model.engine).toBe('wllama');
    expect(small.reason).toContain('storage-buffer binding is 64.0 MB');
    const tinyBuffer = chooseConductorModel(caps({ ...discreteF16, maxBufferSize: 128 * MiB }));
    expect(tinyBuffer.model.engine).toBe('wllama');
    expect(tinyBuffer.reason).toContain('largest buffer is 128.0 MB');
  });

  it('uses the CPU engine when nothing fits the budget', () => {
    const choice = chooseConductorModel(caps(discreteF16), { vramBudgetMB: 500 });
    expect(choice.model.engine).toBe('wllama');
    expect(choice.reason).toContain('No candidate fits');
    expect(choice.reason).toContain('over your 500.0 MB budget');
  });

  it('keeps only low-resource models when bindings are below 1 GiB (Android-class GPUs)', () => {
    // Qwen3.5 2B, 4B and 9B are not low-resource in web-llm 0.2.86: Qwen3 4B is the best that runs.
    const choice = chooseConductorModel(caps({ ...discreteF16, maxStorageBufferBindingSize: 128 * MiB }));
    expect(chosenId(choice)).toBe('Qwen3-4B-q4f16_1-MLC');
    expect(choice.reason).toContain('Qwen3.5 4B needs 1.00 GB storage-buffer bindings');
    expect(choice.byHand.map((ref) => (ref.engine === 'webllm' ? ref.modelId : ''))).not.toContain(
      'Qwen3.5-9B-q4f16_1-MLC',
    );
  });
});

describe('modelOptionLabel', () => {
  it('gives every WebLLM candidate its size, and names the engine', () => {
    expect(modelOptionLabel({ engine: 'webllm', modelId: 'Qwen3-4B-q4f32_1-MLC' })).toBe(
      'Qwen3 4B · q4f32_1 · 4.23 GB GPU memory (WebGPU)',
    );
    expect(modelOptionLabel({ engine: 'webllm', modelId: 'my-custom-MLC' })).toBe('my-custom-MLC (WebGPU)');
    expect(modelOptionLabel(DEFAULT_WLLAMA_MODEL)).toBe(`${DEFAULT_WLLAMA_MODEL.name} (CPU)`);
  });
});

describe('thinksAloud', () => {
  it('follows the table for a candidate and the name for a custom Qwen3 model', () => {
    expect(thinksAloud('Qwen3-1.7B-q4f32_1-MLC')).toBe(true);
    expect(conductorModelInfo('Llama-3.2-3B-Instruct-q4f32_1-MLC')?.thinking).toBe(false);
    expect(thinksAloud('Llama-3.2-3B-Instruct-q4f32_1-MLC')).toBe(false);
    // Not in the table: a custom MLC build of a Qwen3.5 model thinks, any other does not.
    expect(conductorModelInfo('Qwen3.5-4B-custom-MLC')).toBeUndefined();
    expect(thinksAloud('Qwen3.5-4B-custom-MLC')).toBe(true);
    expect(thinksAloud('Phi-3-custom-MLC')).toBe(false);
  });
});
