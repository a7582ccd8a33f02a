/** The add/edit-worker form's state and its rules, kept pure so they are unit-tested. */

import { presetById } from '../providers/catalog.ts';
import { offersWebSearch } from '../providers/web-search.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export type CostTier = NonNullable<WorkerSpec['costTier']>;

export interface Draft {
  providerId: string;
  baseURL: string;
  model: string;
  label: string;
  strengths: string;
  /** Dollars per million tokens as typed; both empty means the price is unknown. */
  inputPerM: string;
  outputPerM: string;
  maxConcurrency: string;
  /** Empty: no tier (the conductor treats the worker as medium). */
  costTier: CostTier | '';
  /**
   * The preset model whose price fills the price fields, if any: typing another model id must not keep a
   * price that belongs to a different model.
   */
  pricedBy?: string;
  /** The label was written by the form (from the preset or the model id), not by the user: it follows the model. */
  autoLabel: boolean;
  /** The worker searches the web: a preset model's mark, or the user's tick for another model. */
  webSearch: boolean;
  /** The worker takes images: a preset model's mark (its provider's documentation), or the user's tick. */
  vision: boolean;
}

/** Next free id "w1", "w2", ... */
export function nextWorkerId(existing: readonly string[]): string {
  for (let i = 1; ; i++) if (!existing.includes(`w${i}`)) return `w${i}`;
}

/** A fresh draft for a provider: its first preset model, or an empty model for custom endpoints. */
export function draftFor(providerId: string): Draft {
  const preset = presetById(providerId);
  const model = preset?.models[0];
  const draft: Draft = {
    providerId,
    baseURL: preset?.baseURL ?? '',
    model: model?.id ?? '',
    label: model ? `${preset?.name} ${model.label}` : (preset?.name ?? ''),
    strengths: model?.strengths ?? '',
    // No preset model (a Custom endpoint): the price is unknown until the user gives one, never $0.
    inputPerM: model ? String(model.price.inputPerM) : '',
    outputPerM: model ? String(model.price.outputPerM) : '',
    maxConcurrency: '2',
    costTier: model?.costTier ?? '',
    autoLabel: true,
    webSearch: model?.webSearch === true,
    vision: model?.vision === true,
  };
  if (model) draft.pricedBy = model.id;
  return draft;
}

/** A draft holding a stored worker, for editing it. */
export function draftFromWorker(worker: WorkerSpec): Draft {
  const preset = presetById(worker.providerId)?.models.find((m) => m.id === worker.model);
  const draft: Draft = {
    providerId: worker.providerId,
    baseURL: worker.baseURL,
    model: worker.model,
    label: worker.label,
    strengths: worker.strengths,
    inputPerM: worker.price ? String(worker.price.inputPerM) : '',
    outputPerM: worker.price ? String(worker.price.outputPerM) : '',
    maxConcurrency: String(worker.maxConcurrency),
    costTier: worker.costTier ?? '',
    autoLabel: false,
    webSearch: worker.webSearch === true,
    vision: worker.vision === true,
  };
  const presetPrice =
    preset &&
    worker.price?.inputPerM === preset.price.inputPerM &&
    worker.price?.outputPerM === preset.price.outputPerM;
  if (presetPrice) draft.pricedBy = preset.id;
  return draft;
}

/**
 * The draft after the user typed or picked model `id`. A preset model brings its label, strengths, price
 * and tier. Another id clears a price that came from a preset model (it would be that model's price,
 * not this one's) and leaves a price the user typed alone.
 */
export function withModel(draft: Draft, id: string): Draft {
  const preset = presetById(draft.providerId);
  const model = preset?.models.find((m) => m.id === id);
  if (model) {
    return {
      ...draft,
      model: id,
      label: draft.autoLabel ? `${preset?.name} ${model.label}` : draft.label,
      strengths: model.strengths,
      inputPerM: String(model.price.inputPerM),
      outputPerM: String(model.price.outputPerM),
      costTier: model.costTier,
      pricedBy: model.id,
      webSearch: model.webSearch === true,
      vision: model.vision,
    };
  }
  // A label the form wrote for another model would name the wrong one.
  const label = draft.autoLabel ? (preset?.models.length ? `${preset.name} ${id}` : id) : draft.label;
  // A search mark that came with a searching preset model is that model's; the user's own tick stays.
  const previous = preset?.models.find((m) => m.id === draft.model);
  const webSearch = previous?.webSearch ? false : draft.webSearch;
  // So is an image mark: the provider documents it for that model, not for the one typed now.
  const vision = previous?.vision ? false : draft.vision;
  if (draft.pricedBy === undefined) return { ...draft, model: id, label, webSearch, vision };
  const { pricedBy: _from, ...rest } = draft;
  return { ...rest, model: id, label, webSearch, vision, inputPerM: '', outputPerM: '', costTier: '' };
}

/** True when the draft says nothing about the price: the worker's cost will show as unknown. */
export function priceUnknown(draft: Draft): boolean {
  return draft.inputPerM.trim() === '' && draft.outputPerM.trim() === '';
}

/** Checks a draft; returns the worker or why it cannot be saved. `base` keeps what the form does not edit. */
export function workerFromDraft(draft: Draft, id: string, base?: WorkerSpec): WorkerSpec | string {
  if (!draft.model.trim()) return 'Choose or type a model id.';
  let url: URL;
  try {
    url = new URL(draft.baseURL.trim());
  } catch {
    return 'The base URL must be an absolute URL (https://…/v1).';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The base URL must be http(s).';
  const inputText = draft.inputPerM.trim();
  const outputText = draft.outputPerM.trim();
  if ((inputText === '') !== (outputText === ''))
    return 'Enter both prices (input and output), or leave both empty if the price is unknown.';
  const input = Number(inputText);
  const output = Number(outputText);
  if (inputText !== '' && !(input >= 0 && output >= 0))
    return 'Prices must be numbers of dollars per million tokens (0 or more).';
  const concurrency = Math.round(Number(draft.maxConcurrency));
  if (!(concurrency >= 1 && concurrency <= 16)) return 'Concurrency must be between 1 and 16.';
  const {
    price: _price,
    costTier: _tier,
    webSearch: _search,
    vision: _vision,
    ...kept
  } = base ?? { enabled: true };
  const worker: WorkerSpec = {
    ...kept,
    id,
    label: draft.label.trim() || draft.model.trim(),
    strengths: draft.strengths.trim(),
    providerId: draft.providerId,
    baseURL: draft.baseURL.trim().replace(/\/+$/, ''),
    model: draft.model.trim(),
    maxConcurrency: concurrency,
    enabled: base?.enabled ?? true,
  };
  if (inputText !== '') {
    worker.price = { inputPerM: input, outputPerM: output };
    // The preset's cache rate comes with the preset's price, not with one the user typed.
    const cached = presetById(draft.providerId)?.models.find((m) => m.id === draft.pricedBy)?.price
      .cachedInputPerM;
    if (cached !== undefined) worker.price.cachedInputPerM = cached;
  }
  if (draft.costTier) worker.costTier = draft.costTier;
  if (draft.webSearch && offersWebSearch(draft.providerId)) worker.webSearch = true;
  if (draft.vision) worker.vision = true;
  return worker;
}

/** The host a worker calls ("api.openai.com", "127.0.0.1:8787"), so two Custom workers can be told apart. */
export function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

/**
 * The worker of `pool` (other than `exceptId`, the one being edited) that `worker` could not be told
 * apart from: the same model at the same address, under the same label. Adding it would only make a copy.
 */
export function sameWorkerIn(
  worker: WorkerSpec,
  pool: readonly WorkerSpec[],
  exceptId?: string,
): WorkerSpec | undefined {
  const address = (url: string) => url.trim().replace(/\/+$/, '').toLowerCase();
  return pool.find(
    (w) =>
      w.id !== exceptId &&
      w.providerId === worker.providerId &&
      address(w.baseURL) === address(worker.baseURL) &&
      w.model === worker.model &&
      w.label.trim() === worker.label.trim(),
  );
}

/** Why a copy of `existing` is refused, and what to change instead. */
export function sameWorkerText(existing: WorkerSpec): string {
  return `“${existing.label}” is already in the pool with this model at this address. To add another worker for it, give it a label of its own.`;
}
