import { describe, expect, it } from 'vitest';
import { createCapabilityProbe } from '../../../src/app/capability-probe.ts';
import type { Capabilities } from '../../../src/shared/capabilities.ts';
import { chooseConductorModel } from '../../../src/shared/model-choice.ts';

const noWebGpu: Capabilities = {
  webgpu: { available: false, reason: 'no-api', message: 'No WebGPU here.' },
  crossOriginIsolated: true,
  hardwareConcurrency: 4,
};

describe('the model choice for this device', () => {
  it('waits for the probe, then follows its answer', () => {
    const probe = createCapabilityProbe();
    expect(probe.modelChoice.value).toBeUndefined();
    probe.capabilities.value = noWebGpu;
    expect(probe.modelChoice.value).toEqual(chooseConductorModel(noWebGpu));
  });

  it('is chosen once per probe: every screen that reads it gets the same choice', () => {
    const probe = createCapabilityProbe();
    probe.capabilities.value = noWebGpu;
    const first = probe.modelChoice.value;
    expect(first).toBeDefined();
    expect(probe.modelChoice.value).toBe(first);
    probe.capabilities.value = { ...noWebGpu, hardwareConcurrency: 8 };
    expect(probe.modelChoice.value).not.toBe(first);
  });
});
