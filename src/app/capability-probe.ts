import { computed, signal } from '@preact/signals';
import { type Capabilities, probeCapabilities } from '../shared/capabilities.ts';
import { chooseConductorModel } from '../shared/model-choice.ts';

/** What this device can run (WebGPU, its adapter, memory...), probed once at start-up. */
export function createCapabilityProbe() {
  /** The probe's answer; undefined while it runs. */
  const capabilities = signal<Capabilities | undefined>(undefined);
  /**
   * The conductor model recommended for this device, with the others it can run: chosen once per probe,
   * not on every draw of the screens that show it.
   */
  const modelChoice = computed(() => {
    const caps = capabilities.value;
    return caps ? chooseConductorModel(caps) : undefined;
  });

  /** Runs the probe and publishes it (also on globalThis for tests and debugging). */
  async function startCapabilities(): Promise<Capabilities> {
    const caps = await probeCapabilities();
    capabilities.value = caps;
    (globalThis as { __batonCapabilities?: unknown }).__batonCapabilities = caps;
    return caps;
  }

  return { capabilities, modelChoice, startCapabilities };
}
