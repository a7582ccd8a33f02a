import { describe, expect, it } from 'vitest';
import { conductorOptions, customModel, modelKey } from '../../../src/app/conductor-options.ts';
import { BROWSER_MODEL } from '../../../src/shared/browser-model.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import { type ConductorChoice, DEFAULT_WLLAMA_MODEL } from '../../../src/shared/model-choice.ts';

const gpu: ModelRef = { engine: 'webllm', modelId: 'Qwen3-1.7B-q4f32_1-MLC' };
const smaller: ModelRef = { engine: 'webllm', modelId: 'Qwen3-0.6B-q4f32_1-MLC' };
const cpu: ModelRef = { engine: 'wllama', url: 'https://example.test/tiny.gguf', name: 'tiny' };
const big: ModelRef = { engine: 'webllm', modelId: 'Qwen3-8B-q4f32_1-MLC' };

function choice(model: ModelRef, alternatives: ModelRef[], byHand: ModelRef[] = []): ConductorChoice {
  return { model, reason: 'test', alternatives, byHand, softwareAdapter: false, budgetMB: 4096 };
}

describe('conductorOptions', () => {
  it('offers the recommendation first, then Chrome’s model where Chrome has one, then the others', () => {
    const options = conductorOptions(choice(gpu, [smaller, cpu], [big]), 'downloadable');
    expect(options.models.map(modelKey)).toEqual([gpu, BROWSER_MODEL, smaller, cpu, big].map(modelKey));
    expect(options.browserOffered).toBe(true);
    expect(options.browserDownload).toBe(true);
    // A plan Chrome's model cannot take moves to the device's own recommendation, and the CPU offer loads
    // the CPU model the device was offered.
    expect(options.fallbackCandidate).toEqual(gpu);
    expect(options.cpuModel).toEqual(cpu);
  });

  it('leaves Chrome’s model out where Chrome says it is unavailable, and offers the default CPU model', () => {
    const options = conductorOptions(choice(gpu, [smaller]), 'unavailable');
    expect(options.models).toEqual([gpu, smaller]);
    expect(options.browserOffered).toBe(false);
    expect(options.browserDownload).toBe(false);
    expect(options.cpuModel).toEqual(DEFAULT_WLLAMA_MODEL);
  });

  it('offers nothing before the device is probed', () => {
    expect(conductorOptions(undefined, 'available').models).toEqual([]);
    expect(conductorOptions(undefined, 'available').fallbackCandidate).toBeUndefined();
  });
});

describe('customModel', () => {
  it('reads a .gguf URL as a CPU model and anything else as an MLC model with its library', () => {
    expect(customModel('https://example.test/m/model.Q4.gguf', '')).toMatchObject({
      engine: 'wllama',
      name: 'model.Q4.gguf',
    });
    expect(customModel('https://example.test/m/My-MLC/', 'https://example.test/lib.wasm')).toEqual({
      engine: 'webllm',
      modelId: 'My-MLC',
      modelUrl: 'https://example.test/m/My-MLC/',
      modelLibUrl: 'https://example.test/lib.wasm',
    });
  });

  it('says what is wrong with a URL it cannot load', () => {
    expect(customModel('not a url', '')).toBe('Enter an absolute URL (https://…).');
    expect(customModel('ftp://example.test/x.gguf', '')).toBe('Only http(s) URLs can be loaded.');
    expect(customModel('https://example.test/m/My-MLC/', ' ')).toContain('compiled library');
  });
});
