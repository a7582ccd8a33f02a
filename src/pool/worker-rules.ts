/**
 * What a worker of the user's pool may be: its id's rules, every problem with a worker in the user's words,
 * and the workers made from the providers' catalog. The pool's store (src/records/pool-store.ts) saves
 * only a worker these find no problem with.
 */
import { CATALOG, type ProviderPreset, presetById } from '../providers/catalog.ts';
import { LOCAL_WORKER, RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export const RESERVED_IDS: readonly string[] = [SELF_WORKER, LOCAL_WORKER, RUN_WORKER];
/** Plans name workers by id, so ids are short and plain: a letter or digit, then letters, digits, `-`, `_`. */
export const WORKER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
export const MAX_CONCURRENCY = 16;

/** Why an id cannot be used, in words for the user; undefined when it can. */
export function workerIdProblem(id: string): string | undefined {
  if (RESERVED_IDS.includes(id.toLowerCase())) {
    if (id.toLowerCase() === SELF_WORKER) return '"self" is reserved for the conductor itself.';
    if (id.toLowerCase() === RUN_WORKER)
      return '"run" is reserved for the code sandbox (it runs code on this device).';
    return '"local" is reserved for the on-device model.';
  }
  if (!WORKER_ID_PATTERN.test(id)) {
    return 'Use 1 to 32 letters, digits, "-" or "_", starting with a letter or digit.';
  }
  return undefined;
}

/** Every problem with a worker, in words for the user; empty when it can be saved. */
export function workerProblems(spec: WorkerSpec): string[] {
  const problems: string[] = [];
  const idProblem = workerIdProblem(spec.id);
  if (idProblem) problems.push(idProblem);
  if (!spec.label.trim()) problems.push('Give the worker a label.');
  if (spec.strengths.includes('\n')) problems.push('Strengths must fit on one line.');
  const preset = presetById(spec.providerId);
  if (!preset) problems.push(`Unknown provider "${spec.providerId}".`);
  let url: URL | undefined;
  try {
    url = new URL(spec.baseURL);
  } catch {
    problems.push('The base URL is not a valid URL.');
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push('The base URL must be http(s).');
  if (url && (url.username || url.password))
    problems.push('The base URL must not contain a user name or password.');
  if (url && preset && !preset.baseURLEditable && url.origin !== new URL(preset.baseURL).origin) {
    problems.push(`${preset.name} lives at ${new URL(preset.baseURL).origin}.`);
  }
  if (!spec.model.trim()) problems.push('Choose a model.');
  if (
    !Number.isInteger(spec.maxConcurrency) ||
    spec.maxConcurrency < 1 ||
    spec.maxConcurrency > MAX_CONCURRENCY
  ) {
    problems.push(`Concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}.`);
  }
  if (spec.price) {
    const { inputPerM, outputPerM, cachedInputPerM = 0 } = spec.price;
    const rates = [inputPerM, outputPerM, cachedInputPerM];
    if (!rates.every((rate) => Number.isFinite(rate) && rate >= 0)) {
      problems.push('Prices must be zero or more (dollars per million tokens).');
    }
  }
  return problems;
}

export class PoolError extends Error {
  override name = 'PoolError';
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

/** A worker for a catalog model, with the preset's price as an editable estimate. */
export function workerFromPreset(preset: ProviderPreset, modelId: string, id: string): WorkerSpec {
  const model = preset.models.find((m) => m.id === modelId);
  return {
    id,
    label: model?.label ?? modelId,
    strengths: model?.strengths ?? '',
    providerId: preset.id,
    baseURL: preset.baseURL,
    model: modelId,
    maxConcurrency: preset.kind === 'local' ? 1 : 4,
    ...(model ? { price: { ...model.price }, costTier: model.costTier } : {}),
    ...(model?.webSearch ? { webSearch: true } : {}),
    ...(model?.vision ? { vision: true } : {}),
    enabled: true,
  };
}

/**
 * A suggested pool for the providers the user has keys for (or runs locally): each provider's first
 * catalog model, ids w1, w2, ... in the order given. Nothing is saved.
 */
export function suggestPool(
  providerIds: readonly string[],
  catalog: readonly ProviderPreset[] = CATALOG,
): WorkerSpec[] {
  const specs: WorkerSpec[] = [];
  for (const providerId of providerIds) {
    const preset = catalog.find((p) => p.id === providerId);
    const first = preset?.models[0];
    if (!preset || !first || !preset.baseURL) continue;
    specs.push(workerFromPreset(preset, first.id, `w${specs.length + 1}`));
  }
  return specs;
}
