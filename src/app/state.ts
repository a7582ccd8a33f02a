import { computed, signal } from '@preact/signals';
import type { Capabilities } from '../shared/capabilities.ts';
import { probeCapabilities } from '../shared/capabilities.ts';
import type { EngineSuggestion } from '../shared/engine-errors.ts';
import type { ModelRef } from '../shared/model.ts';
import { storedValue } from './local-store.ts';
import type { ProgressView } from './progress.ts';

/** The probe's answer; undefined while it runs. */
export const capabilities = signal<Capabilities | undefined>(undefined);

export type ConductorStatus = 'none' | 'loading' | 'ready' | 'error';

export interface ConductorState {
  status: ConductorStatus;
  model?: ModelRef;
  /** Display name of the model. */
  label?: string;
  progress?: ProgressView;
  error?: string;
  /** What the engine suggests after a failed load, best first (from the error's name). */
  suggestions?: EngineSuggestion[];
}

/**
 * The on-device conductor model, as the status line and the settings show it. The one owner of which model
 * is loaded on the page: the bridge names it in every request (and a restarted thread reloads it from there).
 */
export const conductor = signal<ConductorState>({ status: 'none' });

/** The model loaded and ready, read from `conductor`; undefined while none is. */
export const loadedModel = computed<ModelRef | undefined>(() => {
  const state = conductor.value;
  return state.status === 'ready' ? state.model : undefined;
});

export function modelLabel(model: ModelRef): string {
  if (model.engine === 'local-server') return `${model.model} (local server)`;
  return model.engine === 'webllm' ? model.modelId : (model.name ?? model.url.split('/').pop() ?? model.url);
}

/** Runs the capability probe once and publishes it (also on globalThis for tests and debugging). */
export async function startCapabilities(): Promise<Capabilities> {
  const caps = await probeCapabilities();
  capabilities.value = caps;
  (globalThis as { __batonCapabilities?: unknown }).__batonCapabilities = caps;
  return caps;
}

// Without storage the start screen simply shows again next time.
const onboarded = storedValue<boolean>(
  'baton.onboarded',
  (raw) => raw === '1',
  (on) => (on ? '1' : '0'),
);

export function isOnboarded(): boolean {
  return onboarded.read();
}

export function markOnboarded(): void {
  onboarded.write(true);
}
