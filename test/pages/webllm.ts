import type { Capabilities } from '../../src/shared/capabilities.ts';
import { type EngineFailure, suggestionsFor } from '../../src/shared/engine-errors.ts';
import type { ModelRef } from '../../src/shared/model.ts';
import type { ConductorChoice } from '../../src/shared/model-choice.ts';
import type { HarnessRequest } from './webllm-harness.worker.ts';

/**
 * Harness for the WebLLM browser test. The engine runs in a dedicated module worker; the page shows the
 * model choice, tries to load the chosen WebGPU model, and on failure shows the error and offers the
 * CPU engine, as the app will. Results are also on `window.__webllmHarness` for Playwright.
 */

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  failure?: EngineFailure;
  progress?: unknown[];
  ms?: number;
}

const worker = new Worker(new URL('./webllm-harness.worker.ts', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map<number, (reply: Reply) => void>();
worker.onmessage = (event: MessageEvent<Reply>) => {
  pending.get(event.data.id)?.(event.data);
  pending.delete(event.data.id);
};

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

function call(request: WithoutId<HarnessRequest>): Promise<Reply> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ ...request, id });
  });
}

const state: {
  caps?: Capabilities;
  choice?: ConductorChoice;
  load?: Reply;
  ping: () => Promise<Reply>;
} = { ping: () => call({ op: 'ping' }) };
(globalThis as { __webllmHarness?: typeof state }).__webllmHarness = state;

const choiceEl = document.getElementById('choice') as HTMLParagraphElement;
const loadButton = document.getElementById('load') as HTMLButtonElement;
const errorEl = document.getElementById('error') as HTMLDivElement;
const selectedEl = document.getElementById('selected') as HTMLParagraphElement;

function showError(failure: EngineFailure, model: string): void {
  errorEl.replaceChildren();
  const alert = document.createElement('div');
  alert.setAttribute('role', 'alert');
  alert.dataset.testid = 'load-error';
  alert.dataset.name = failure.name;
  alert.dataset.suggestion = failure.suggestion ?? '';
  alert.textContent = failure.message;
  errorEl.append(alert);
  // What comlink would give us is only the name: the offer is rebuilt from it, not from the extra fields.
  if (suggestionsFor(failure.name).includes('cpu') && state.choice) {
    const cpu = document.createElement('button');
    cpu.type = 'button';
    cpu.dataset.testid = 'use-cpu';
    const fallback =
      state.choice.model.engine === 'wllama' ? state.choice.model : state.choice.alternatives.at(-1);
    cpu.textContent = 'Use the CPU engine instead';
    cpu.onclick = () => {
      const name = fallback?.engine === 'wllama' ? (fallback.name ?? fallback.url) : 'CPU engine';
      selectedEl.textContent = `CPU engine selected: ${name} (instead of ${model})`;
      errorEl.replaceChildren();
    };
    errorEl.append(cpu);
  }
}

async function main(): Promise<void> {
  const reply = await call({ op: 'choose' });
  const value = reply.value as { caps: Capabilities; choice: ConductorChoice };
  state.caps = value.caps;
  state.choice = value.choice;
  choiceEl.textContent = value.choice.reason;
  choiceEl.dataset.engine = value.choice.model.engine;
  choiceEl.dataset.webgpuModel = value.choice.webgpuModel?.modelId ?? '';
  choiceEl.dataset.software = String(value.choice.softwareAdapter);
  const webgpu = value.choice.webgpuModel;
  if (!webgpu) {
    choiceEl.dataset.ready = 'true';
    return;
  }
  // Asking the cache loads web-llm's code in the worker, as the app does before offering a download.
  // `?cacheCheck=0` skips it, to test going offline before that code was ever fetched.
  if (new URLSearchParams(location.search).get('cacheCheck') !== '0') {
    const cached = await call({ op: 'cached', model: { engine: 'webllm', modelId: webgpu.modelId } });
    choiceEl.dataset.cached = cached.ok ? String(cached.value) : `error: ${cached.failure?.name}`;
  }
  choiceEl.dataset.ready = 'true';
  loadButton.disabled = false;
  loadButton.onclick = async () => {
    loadButton.disabled = true;
    const model: ModelRef = { engine: 'webllm', modelId: webgpu.modelId };
    const result = await call({ op: 'load', model });
    state.load = result;
    loadButton.disabled = false;
    if (!result.ok && result.failure) showError(result.failure, webgpu.modelId);
    else selectedEl.textContent = `Loaded ${webgpu.modelId}`;
  };
}

void main();
