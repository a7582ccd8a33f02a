import { computed, signal } from '@preact/signals';
import type { ConductorBridge } from '../conductor/bridge.ts';
import { createPromptApiHost, type PromptApiHost } from '../conductor/prompt-api.ts';
import type { Ledger } from '../egress/ledger.ts';
import { BROWSER_MODEL, BROWSER_MODEL_NAME, type BrowserModelAvailability } from '../shared/browser-model.ts';
import { type EngineSuggestion, suggestionsFor } from '../shared/engine-errors.ts';
import type { ModelRef } from '../shared/model.ts';
import { parseJson, storedValue } from './local-store.ts';
import { ProgressTracker, type ProgressView } from './progress.ts';
import { whenControlled } from './pwa.ts';
import type { AppStorage } from './storage.ts';

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

export function modelLabel(model: ModelRef): string {
  if (model.engine === 'local-server') return `${model.model} (local server)`;
  if (model.engine === 'prompt-api') return BROWSER_MODEL_NAME;
  return model.engine === 'webllm' ? model.modelId : (model.name ?? model.url.split('/').pop() ?? model.url);
}

/** A failed load: comlink brings the engine's error across by name, and its suggestions follow from that. */
function failedState(model: ModelRef, label: string, error: unknown): ConductorState {
  const e = error as { name?: string; message?: string };
  return {
    status: 'error',
    model,
    label,
    error: e.message ?? String(error),
    suggestions: suggestionsFor(e.name ?? ''),
  };
}

/** What the conductor needs from the rest of the app; a test passes its own thread. */
export interface ConductorServices {
  ledger(): Promise<Ledger>;
  /**
   * Makes the bridge to the conductor thread, once. `loadedModel` tells it which model the page has loaded
   * (a thread restarted after a crash reloads it). Default: the real thread, made as described at `bridge`.
   */
  openBridge?(loadedModel: () => ModelRef | undefined): Promise<ConductorBridge>;
  /** The browser's own model (Chrome's Prompt API). Default: the page's `LanguageModel`. */
  browserModel?: PromptApiHost;
}

function isModelRef(value: unknown): value is ModelRef {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.engine === 'webllm' && typeof v.modelId === 'string') ||
    (v.engine === 'wllama' && typeof v.url === 'string') ||
    (v.engine === 'local-server' && typeof v.baseURL === 'string' && typeof v.model === 'string') ||
    v.engine === 'prompt-api'
  );
}

/**
 * The on-device conductor: which model is loaded (the one owner of it on the page: the bridge names it in
 * every request), its load with progress, and the bridge to its thread.
 */
export function createConductor(services: ConductorServices) {
  const state = signal<ConductorState>({ status: 'none' });
  const browserModel = services.browserModel ?? createPromptApiHost();
  /** What Chrome says of its model (`LanguageModel.availability()`); undefined until asked. */
  const browserModelState = signal<BrowserModelAvailability | undefined>(undefined);

  /** The model loaded and ready, read from `state`; undefined while none is. */
  const loadedModel = computed<ModelRef | undefined>(() => {
    const s = state.value;
    return s.status === 'ready' ? s.model : undefined;
  });

  let opened: Promise<ConductorBridge> | undefined;
  /**
   * The bridge, created on first use: its module (comlink and the thread URL) is a lazy chunk, and the
   * thread itself (with web-llm or wllama) starts only when a model is loaded. On a first visit it waits
   * for the service worker to take the page, so the engine files the thread fetches are cached for offline.
   */
  function bridge(): Promise<ConductorBridge> {
    opened ??= services.openBridge
      ? services.openBridge(() => loadedModel.value)
      : whenControlled()
          .then(() => Promise.all([import('../conductor/bridge.ts'), import('../egress/model-downloads.ts')]))
          .then(
            ([m, downloads]) =>
              new m.ConductorBridge({
                loadedModel: () => loadedModel.value,
                browserModel,
                fallbackModel: () => fallback.value,
                // The thread's model downloads go in the egress ledger like every other request.
                onModelDownload: downloads.modelDownloadRecorder(services.ledger),
              }),
          );
    return opened;
  }

  // Not remembered: the user picks again next time.
  const chosenModel = storedValue<ModelRef | undefined>('baton.conductorModel', (raw) => {
    const parsed = parseJson(raw);
    return isModelRef(parsed) ? parsed : undefined;
  });

  /** The model the user chose last (loaded again on the next visit if it is cached). */
  const savedModel = (): ModelRef | undefined => chosenModel.read();

  /**
   * The engine the user allowed after the loaded one: a plan the loaded model cannot take (a question too
   * long for Chrome's model, a language it does not read) moves there and says so.
   */
  const fallbackModel = storedValue<ModelRef | undefined>('baton.conductorFallback', (raw) => {
    const parsed = parseJson(raw);
    return isModelRef(parsed) ? parsed : undefined;
  });
  const fallback = signal<ModelRef | undefined>(fallbackModel.read());
  function allowFallback(model: ModelRef | undefined): void {
    fallbackModel.write(model);
    fallback.value = model;
  }

  /** Asks Chrome about its model (cheap, no download): the Start screen offers it by what it says. */
  async function probeBrowserModel(): Promise<BrowserModelAvailability> {
    const answer = await browserModel.availability();
    browserModelState.value = answer;
    return answer;
  }

  /**
   * Uses the browser's model; when Chrome must download it first, starts that download now. Call it from
   * the user's click, before anything awaits: Chrome downloads only with a user activation.
   */
  async function useBrowserModel(storage: Pick<AppStorage, 'requestPersistence'>): Promise<boolean> {
    if (browserModelState.value === 'downloadable' || browserModelState.value === 'downloading') {
      const seq = ++loadSeq;
      const tracker = new ProgressTracker();
      const label = BROWSER_MODEL_NAME;
      const downloading = browserModel.download((p) => {
        if (seq === loadSeq)
          state.value = { status: 'loading', model: BROWSER_MODEL, label, progress: tracker.update(p) };
      });
      state.value = {
        status: 'loading',
        model: BROWSER_MODEL,
        label,
        progress: tracker.update({ fraction: 0 }),
      };
      try {
        await downloading;
      } catch (error) {
        if (seq === loadSeq) state.value = failedState(BROWSER_MODEL, label, error);
        return false;
      } finally {
        void probeBrowserModel();
      }
      if (seq !== loadSeq) return false;
    }
    return load(BROWSER_MODEL, storage);
  }

  let loadSeq = 0;

  /** Loads the model the user picked. Chrome's may have to be downloaded first: that starts in this call. */
  function loadPicked(model: ModelRef, storage: Pick<AppStorage, 'requestPersistence'>): Promise<boolean> {
    return model.engine === 'prompt-api' ? useBrowserModel(storage) : load(model, storage);
  }

  /**
   * Downloads (or reads from the cache) and loads a model in the conductor thread, publishing progress
   * (bytes, percent, speed, time left) to `state`. Asks for persistent storage first, so the browser keeps
   * the cached weights.
   */
  async function load(model: ModelRef, storage: Pick<AppStorage, 'requestPersistence'>): Promise<boolean> {
    const seq = ++loadSeq;
    const label = modelLabel(model);
    const tracker = new ProgressTracker();
    state.value = { status: 'loading', model, label, progress: tracker.update({ fraction: 0 }) };
    void storage.requestPersistence();
    try {
      const b = await bridge();
      await b.load(model, (p) => {
        if (seq !== loadSeq) return;
        // The engine's report is already a progress sample (the tracker reads only the fields it knows).
        state.value = { status: 'loading', model, label, progress: tracker.update(p) };
      });
      if (seq !== loadSeq) return false;
      state.value = { status: 'ready', model, label };
      chosenModel.write(model);
      return true;
    } catch (error) {
      if (seq === loadSeq) state.value = failedState(model, label, error);
      return false;
    }
  }

  /**
   * Forgets a failed load once the user turns to another model: its error (and its Try again) belongs to the
   * model that failed, not to the one now chosen.
   */
  function dismissError(): void {
    if (state.value.status === 'error') state.value = { status: 'none' };
  }

  /** Stops a load in progress: the thread is replaced, so the half-loaded model is dropped. */
  async function cancelLoad(): Promise<void> {
    loadSeq++;
    const b = await bridge();
    b.restart('Model load cancelled');
    state.value = { status: 'none' };
  }

  async function unload(): Promise<void> {
    const b = await bridge();
    await b.unload();
    state.value = { status: 'none' };
  }

  /** Loads the remembered model on start-up when it is already in the cache (no download without asking). */
  async function restore(storage: Pick<AppStorage, 'requestPersistence'>): Promise<void> {
    const model = savedModel();
    if (!model) return;
    try {
      const b = await bridge();
      const status = await b.cacheStatus(model);
      if (status.cached) await load(model, storage);
    } catch {
      // The thread could not answer: the user can load a model from the start screen.
    }
  }

  return {
    state,
    loadedModel,
    bridge,
    savedModel,
    load,
    loadPicked,
    cancelLoad,
    unload,
    restore,
    dismissError,
    browserModelState,
    probeBrowserModel,
    useBrowserModel,
    fallback,
    allowFallback,
  };
}

export type Conductor = ReturnType<typeof createConductor>;
