import type { ConductorBridge } from '../conductor/bridge.ts';
import { suggestionsFor } from '../shared/engine-errors.ts';
import type { ModelRef } from '../shared/model.ts';
import { parseJson, storedValue } from './local-store.ts';
import { ProgressTracker } from './progress.ts';
import { whenControlled } from './pwa.ts';
import { getLedger } from './services.ts';
import { conductor, loadedModel, modelLabel } from './state.ts';
import type { AppStorage } from './storage.ts';

let bridge: Promise<ConductorBridge> | undefined;

/**
 * The conductor bridge, created on first use: its module (comlink and the thread URL) is a lazy chunk, and
 * the thread itself (with web-llm or wllama) starts only when a model is loaded. On a first visit it waits
 * for the service worker to take the page, so the engine files the worker fetches are cached for offline.
 */
export function getBridge(): Promise<ConductorBridge> {
  bridge ??= whenControlled()
    .then(() => Promise.all([import('../conductor/bridge.ts'), import('../egress/model-downloads.ts')]))
    .then(
      ([m, downloads]) =>
        new m.ConductorBridge({
          loadedModel: () => loadedModel.value,
          // The thread's model downloads go in the egress ledger like every other request.
          onModelDownload: downloads.modelDownloadRecorder(getLedger),
        }),
    );
  return bridge;
}

const MODEL_KEY = 'baton.conductorModel';

function isModelRef(value: unknown): value is ModelRef {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.engine === 'webllm' && typeof v.modelId === 'string') ||
    (v.engine === 'wllama' && typeof v.url === 'string') ||
    (v.engine === 'local-server' && typeof v.baseURL === 'string' && typeof v.model === 'string')
  );
}

// Not remembered: the user picks again next time.
const chosenModel = storedValue<ModelRef | undefined>(MODEL_KEY, (raw) => {
  const parsed = parseJson(raw);
  return isModelRef(parsed) ? parsed : undefined;
});

/** The model the user chose last (loaded again on the next visit if it is cached). */
export function savedModel(): ModelRef | undefined {
  return chosenModel.read();
}

let loadSeq = 0;

/**
 * Downloads (or reads from the cache) and loads a model in the conductor thread, publishing progress
 * (bytes, percent, speed, time left) to the `conductor` signal. Asks for persistent storage first, so the
 * browser keeps the cached weights.
 */
export async function loadConductor(
  model: ModelRef,
  storage: Pick<AppStorage, 'requestPersistence'>,
): Promise<boolean> {
  const seq = ++loadSeq;
  const label = modelLabel(model);
  const tracker = new ProgressTracker();
  conductor.value = { status: 'loading', model, label, progress: tracker.update({ fraction: 0 }) };
  void storage.requestPersistence();
  try {
    const b = await getBridge();
    await b.load(model, (p) => {
      if (seq !== loadSeq) return;
      // The engine's report is already a progress sample (the tracker reads only the fields it knows).
      conductor.value = { status: 'loading', model, label, progress: tracker.update(p) };
    });
    if (seq !== loadSeq) return false;
    conductor.value = { status: 'ready', model, label };
    chosenModel.write(model);
    return true;
  } catch (error) {
    if (seq !== loadSeq) return false;
    // Comlink brings the engine's error across by name: its suggestions follow from that.
    const e = error as { name?: string; message?: string };
    conductor.value = {
      status: 'error',
      model,
      label,
      error: e.message ?? String(error),
      suggestions: suggestionsFor(e.name ?? ''),
    };
    return false;
  }
}

/** Stops a load in progress: the thread is replaced, so the half-loaded model is dropped. */
export async function cancelLoad(): Promise<void> {
  loadSeq++;
  const b = await getBridge();
  b.restart('Model load cancelled');
  conductor.value = { status: 'none' };
}

export async function unloadConductor(): Promise<void> {
  const b = await getBridge();
  await b.unload();
  conductor.value = { status: 'none' };
}

/** Loads the remembered model on start-up when it is already in the cache (no download without asking). */
export async function restoreConductor(storage: Pick<AppStorage, 'requestPersistence'>): Promise<void> {
  const model = savedModel();
  if (!model) return;
  try {
    const b = await getBridge();
    const status = await b.cacheStatus(model);
    if (status.cached) await loadConductor(model, storage);
  } catch {
    // The thread could not answer: the user can load a model from the start screen.
  }
}
