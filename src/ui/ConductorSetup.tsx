import { useState } from 'preact/hooks';
import type { ModelRef } from '../../workers/engines/engine.ts';
import { cancelLoad, loadConductor } from '../app/conductor.ts';
import { formatBytes } from '../app/format.ts';
import { capabilities, conductor, modelLabel } from '../app/state.ts';
import { storageStatus } from '../app/storage.ts';
import { chooseConductorModel, listConductorModels } from '../conductor/model-choice.ts';
import { ProgressBar } from './ProgressBar.tsx';

function refKey(model: ModelRef): string {
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

/**
 * The conductor model: the recommendation for this device and why, a choice of others (or a custom URL),
 * the download with a real progress bar, and the storage status.
 */
export function ConductorSetup() {
  const caps = capabilities.value;
  const state = conductor.value;
  const storage = storageStatus.value;
  const choice = caps ? chooseConductorModel(caps) : undefined;
  const options: ModelRef[] = choice ? [choice.model, ...choice.alternatives] : [];
  // Every WebLLM candidate of the right quantization can still be chosen by hand.
  if (caps?.webgpu.available) {
    const quant = caps.webgpu.gpu.shaderF16 ? 'q4f16_1' : 'q4f32_1';
    for (const info of listConductorModels()) {
      if (info.quantization !== quant) continue;
      const ref: ModelRef = { engine: 'webllm', modelId: info.modelId };
      if (!options.some((o) => refKey(o) === refKey(ref))) options.push(ref);
    }
  }
  const [selected, setSelected] = useState<string>('');
  const [customUrl, setCustomUrl] = useState('');
  const [customLib, setCustomLib] = useState('');
  const [customError, setCustomError] = useState<string | undefined>();
  const selectedKey = selected || (choice ? refKey(choice.model) : '');
  const loading = state.status === 'loading';

  const start = () => {
    if (selectedKey === 'custom') {
      const model = customModel(customUrl, customLib);
      if (typeof model === 'string') {
        setCustomError(model);
        return;
      }
      setCustomError(undefined);
      void loadConductor(model);
      return;
    }
    const model = options.find((o) => refKey(o) === selectedKey);
    if (model) void loadConductor(model);
  };

  return (
    <section class="card" aria-labelledby="conductor-title" data-testid="conductor-setup">
      <h2 id="conductor-title">Conductor model</h2>
      {!choice && <p class="muted">Waiting for the device check…</p>}
      {choice && (
        <p data-testid="recommendation">
          <strong>Recommended: {modelLabel(choice.model)}.</strong> {choice.reason}
        </p>
      )}
      {choice && (
        <div class="field">
          <label for="conductor-model">Model</label>
          <select
            id="conductor-model"
            value={selectedKey}
            disabled={loading}
            onChange={(e) => setSelected((e.currentTarget as HTMLSelectElement).value)}
          >
            {options.map((o, i) => (
              <option key={refKey(o)} value={refKey(o)}>
                {modelLabel(o)}
                {o.engine === 'wllama' ? ' (CPU)' : ' (WebGPU)'}
                {i === 0 ? ' — recommended' : ''}
              </option>
            ))}
            <option value="custom">Custom model by URL…</option>
          </select>
        </div>
      )}
      {selectedKey === 'custom' && (
        <>
          <div class="field">
            <label for="custom-url">
              Model URL (a .gguf file for the CPU engine, or an MLC model repository)
            </label>
            <input
              id="custom-url"
              type="url"
              value={customUrl}
              placeholder="https://huggingface.co/…/model.gguf"
              onInput={(e) => setCustomUrl((e.currentTarget as HTMLInputElement).value)}
              aria-describedby={customError ? 'custom-error' : undefined}
            />
          </div>
          {!/\.gguf(\?|#|$)/i.test(customUrl) && (
            <div class="field">
              <label for="custom-lib">Model library URL (.wasm, MLC models only)</label>
              <input
                id="custom-lib"
                type="url"
                value={customLib}
                onInput={(e) => setCustomLib((e.currentTarget as HTMLInputElement).value)}
              />
            </div>
          )}
          {customError && (
            <p id="custom-error" class="alert" data-kind="error" role="alert">
              {customError}
            </p>
          )}
        </>
      )}
      <div class="row">
        {!loading && (
          <button type="button" class="primary" onClick={start} disabled={!choice} data-testid="load-model">
            {state.status === 'ready' ? 'Load this model instead' : 'Download and load'}
          </button>
        )}
        {loading && (
          <button type="button" onClick={() => void cancelLoad()}>
            Cancel download
          </button>
        )}
        {state.status === 'ready' && (
          <span class="badge" data-status="done" data-testid="model-ready">
            Loaded: {state.label}
          </span>
        )}
      </div>
      {loading && state.progress && (
        <ProgressBar view={state.progress} label={`Loading ${state.label ?? 'model'}`} />
      )}
      {state.status === 'error' && (
        <div class="alert" data-kind="error" role="alert" data-testid="model-error">
          <p style={{ margin: 0 }}>
            Could not load {state.label}: {state.error}
          </p>
          {choice && choice.model.engine === 'wllama' ? null : (
            <p style={{ margin: '0.25rem 0 0' }}>
              You can choose the CPU engine or a smaller model above and try again.
            </p>
          )}
        </div>
      )}
      <p class="small muted" data-testid="storage-status">
        Storage:{' '}
        {storage.persisted === undefined
          ? 'unknown'
          : storage.persisted
            ? 'persistent (the browser keeps the model)'
            : storage.asked
              ? 'not persistent: the browser may evict the model under storage pressure'
              : 'not yet persistent (asked when you load a model)'}
        {storage.usageBytes !== undefined && storage.quotaBytes !== undefined
          ? ` · ${formatBytes(storage.usageBytes)} used of ${formatBytes(storage.quotaBytes)}`
          : ''}
      </p>
    </section>
  );
}
