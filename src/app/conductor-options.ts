/**
 * The conductor models Start and Settings offer, as the app decides them: the device's recommendation
 * first, Chrome's own model where Chrome has one, then the others; which one a plan moves to when Chrome's
 * model cannot take it; and which one the CPU engine offer loads. The view only shows them.
 */
import { BROWSER_MODEL, type BrowserModelAvailability } from '../shared/browser-model.ts';
import type { ModelRef } from '../shared/model.ts';
import { type ConductorChoice, DEFAULT_WLLAMA_MODEL } from '../shared/model-choice.ts';

/** One key per model, for a select's value and to tell the loaded model from the chosen one. */
export function modelKey(model: ModelRef): string {
  if (model.engine === 'local-server') return `local-server:${model.baseURL}#${model.model}`;
  if (model.engine === 'prompt-api') return 'prompt-api';
  return model.engine === 'webllm' ? `webllm:${model.modelId}` : `wllama:${model.url}`;
}

/** Reads a custom model from the URL box: a .gguf URL runs on the CPU engine, anything else is an MLC model. */
export function customModel(url: string, libUrl: string): ModelRef | string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return 'Enter an absolute URL (https://…).';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'Only http(s) URLs can be loaded.';
  if (/\.gguf$/i.test(parsed.pathname)) {
    return {
      engine: 'wllama',
      url: parsed.toString(),
      name: parsed.pathname.split('/').pop() ?? 'custom GGUF',
    };
  }
  if (!libUrl.trim()) return 'A custom MLC model also needs the URL of its compiled library (.wasm).';
  const id = parsed.pathname.split('/').filter(Boolean).pop() ?? 'custom-mlc';
  return { engine: 'webllm', modelId: id, modelUrl: parsed.toString(), modelLibUrl: libUrl.trim() };
}

export interface ConductorOptions {
  /** In the order offered: the recommendation, Chrome's model (when offered), the others, those by hand. */
  models: ModelRef[];
  /** Chrome has a model of its own, ready or to download. */
  browserOffered: boolean;
  /** Chrome must download its model first (after the user's click). */
  browserDownload: boolean;
  /** What a plan moves to when Chrome's model cannot take it: the device's own recommendation. */
  fallbackCandidate: ModelRef | undefined;
  /** What "Use the CPU engine" loads after a failed load. */
  cpuModel: ModelRef;
}

export function conductorOptions(
  choice: ConductorChoice | undefined,
  browser: BrowserModelAvailability | undefined,
): ConductorOptions {
  const browserOffered = browser === 'available' || browser === 'downloadable' || browser === 'downloading';
  const models: ModelRef[] = choice
    ? [choice.model, ...(browserOffered ? [BROWSER_MODEL] : []), ...choice.alternatives, ...choice.byHand]
    : [];
  return {
    models,
    browserOffered,
    browserDownload: browser === 'downloadable' || browser === 'downloading',
    fallbackCandidate: models.find((o) => o.engine !== 'prompt-api'),
    cpuModel: models.find((o) => o.engine === 'wllama') ?? DEFAULT_WLLAMA_MODEL,
  };
}
