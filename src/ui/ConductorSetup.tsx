import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { modelLabel } from '../app/conductor.ts';
import { conductorOptions, modelKey } from '../app/conductor-options.ts';
import {
  CUSTOM_MODEL,
  LOCAL_SERVER,
  pickedKey,
  pickedModel,
  sameModel,
  startPick,
} from '../app/conductor-pick.ts';
import { loadFailureHints } from '../app/load-failure-hints.ts';
import { defaultDraft, draftOf, type LocalServerDraft } from '../app/local-server-draft.ts';
import { BROWSER_MODEL_NEEDS } from '../conductor/prompt-api.ts';
import { BROWSER_MODEL_NAME } from '../shared/browser-model.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import type { ModelRef } from '../shared/model.ts';
import { modelOptionLabel } from '../shared/model-choice.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';
import { LocalServerFields } from './LocalServerFields.tsx';
import { ProgressBar } from './ProgressBar.tsx';

/**
 * The conductor model: the recommendation for this device and why, a choice of others (a custom URL, or a
 * bigger planner on a local server), the download with a real progress bar, and the storage status. Each engine holds one model at a time,
 * so switching unloads the current model first: the user confirms that before it happens.
 */
export function ConductorSetup() {
  const app = useAppState();
  const state = app.conductor.state.value;
  const storage = app.storage.storageStatus.value;
  // Called in the click: Chrome downloads its model only with a user activation.
  const load = (model: ModelRef) => void app.conductor.loadPicked(model, app.storage);
  const choice = app.device.modelChoice.value;
  const browserState = app.conductor.browserModelState.value;
  const {
    models: options,
    browserDownload,
    fallbackCandidate,
    cpuModel,
  } = conductorOptions(choice, browserState);
  const fallback = app.conductor.fallback.value;
  const [selected, setSelected] = useState<string>('');
  const [customUrl, setCustomUrl] = useState('');
  const [customLib, setCustomLib] = useState('');
  const [customError, setCustomError] = useState<string | undefined>();
  const [switchTo, setSwitchTo] = useState<ModelRef | undefined>();
  // The server and model chosen last (or loaded now) fill the form again.
  const [serverDraft, setServerDraft] = useState<LocalServerDraft>(
    () => draftOf(app.conductor.loadedModel.value) ?? draftOf(app.conductor.savedModel()) ?? defaultDraft(),
  );
  const [serverError, setServerError] = useState<string | undefined>();
  const confirmRef = useRef<HTMLButtonElement>(null);
  // In the render that shows the question, not a frame later: the button that asked for it is gone by then.
  useLayoutEffect(() => {
    if (switchTo) confirmRef.current?.focus();
  }, [switchTo]);
  const loaded = app.conductor.loadedModel.value;
  const selectedKey = pickedKey(selected, loaded, choice);
  const pick = { key: selectedKey, customUrl, customLib, server: serverDraft };
  const loading = state.status === 'loading';
  const selectedModel = pickedModel(pick, options);
  const selectedIsLoaded = sameModel(loaded, selectedModel);

  const start = () => {
    const next = startPick(pick, options, loaded);
    if (next && 'refused' in next) {
      if (next.refused === 'custom') setCustomError(next.message);
      else setServerError(next.refused === 'server' ? next.message : undefined);
      // A refused URL is explained under its field as it is typed: go there; the alert says the rest.
      if (next.refused === 'server-url') document.getElementById('local-server-url')?.focus();
      return;
    }
    setCustomError(undefined);
    setServerError(undefined);
    if (!next) return;
    if ('switchTo' in next) setSwitchTo(next.switchTo);
    else load(next.load);
  };
  const confirmSwitch = () => {
    const model = switchTo;
    setSwitchTo(undefined);
    if (model) load(model);
  };
  const hints =
    state.status === 'error' ? loadFailureHints(state.suggestions ?? [], state.model, cpuModel, load) : [];
  // The failed model is still the one selected and its alert offers Try again: the load button would be a
  // second one.
  const failedHere =
    state.status === 'error' &&
    sameModel(state.model, selectedModel) &&
    hints.some((hint) => hint.kind === 'retry' && hint.action);

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
            onChange={(e) => {
              setSelected(e.currentTarget.value);
              setSwitchTo(undefined);
              app.conductor.dismissError();
            }}
          >
            {options.map((o, i) => (
              <option key={modelKey(o)} value={modelKey(o)}>
                {modelOptionLabel(o)}
                {i === 0 ? ' — recommended' : ''}
                {o.engine === 'prompt-api' && browserDownload ? ' — Chrome downloads it first' : ''}
              </option>
            ))}
            <option value={CUSTOM_MODEL}>Custom model by URL…</option>
            <option value={LOCAL_SERVER}>
              A bigger planner on a local server (Ollama, LM Studio, llama.cpp, vLLM)…
            </option>
          </select>
        </div>
      )}
      {browserState === 'unavailable' && (
        <p class="small muted" data-testid="browser-model-unavailable">
          {BROWSER_MODEL_NAME}: Chrome says it is unavailable on this device (it needs {BROWSER_MODEL_NEEDS}).
        </p>
      )}
      {selectedKey === 'prompt-api' && (
        <div class="field-hint" data-testid="browser-model-info">
          <p style={{ margin: 0 }}>
            Chrome downloads and runs this model itself: Baton downloads nothing, and planning stays on this
            device.{' '}
            {browserDownload
              ? 'Chrome must download it first when you click below (several GB; Chrome does not say how much: chrome://on-device-internals shows it). '
              : ''}
            Its limits: it reads English, Spanish and Japanese, and takes a short prompt (its context window),
            so a long question may not fit; it needs {BROWSER_MODEL_NEEDS}.
          </p>
          {fallbackCandidate && (
            <label class="row" style={{ marginTop: '0.35rem' }}>
              <input
                type="checkbox"
                data-testid="browser-model-fallback"
                checked={sameModel(fallback, fallbackCandidate)}
                onChange={(e) =>
                  app.conductor.allowFallback(e.currentTarget.checked ? fallbackCandidate : undefined)
                }
              />
              When a question does not fit it (too long, another language), plan it with{' '}
              {modelOptionLabel(fallbackCandidate)} instead (downloaded when first needed).
            </label>
          )}
        </div>
      )}
      {selectedKey === LOCAL_SERVER && (
        <LocalServerFields
          draft={serverDraft}
          onDraft={(draft) => {
            setServerDraft(draft);
            setServerError(undefined);
            setSwitchTo(undefined);
          }}
          error={serverError}
          disabled={loading}
        />
      )}
      {selectedKey === CUSTOM_MODEL && (
        <>
          <Field
            id="custom-url"
            label="Model URL (a .gguf file for the CPU engine, or an MLC model repository)"
            type="url"
            value={customUrl}
            placeholder="https://huggingface.co/…/model.gguf"
            aria-describedby={customError ? 'custom-error' : undefined}
            onValue={setCustomUrl}
          />
          {!/\.gguf(\?|#|$)/i.test(customUrl) && (
            <Field
              id="custom-lib"
              label="Model library URL (.wasm, MLC models only)"
              type="url"
              value={customLib}
              onValue={setCustomLib}
            />
          )}
          {customError && (
            <p id="custom-error" class="alert" data-kind="error" role="alert">
              {customError}
            </p>
          )}
        </>
      )}
      <div class="row">
        {!loading && !selectedIsLoaded && !switchTo && !failedHere && (
          <button type="button" class="primary" onClick={start} disabled={!choice} data-testid="load-model">
            {loaded
              ? 'Switch to this model…'
              : selectedKey === LOCAL_SERVER
                ? 'Connect'
                : selectedKey === 'prompt-api'
                  ? browserDownload
                    ? "Download Chrome's model"
                    : "Use Chrome's model"
                  : 'Download and load'}
          </button>
        )}
        {loading && (
          <button type="button" onClick={() => void app.conductor.cancelLoad()}>
            Cancel download
          </button>
        )}
        {state.status === 'ready' && (
          <span class="badge" data-status="done" data-testid="model-ready">
            Loaded: {state.label}
          </span>
        )}
      </div>
      {switchTo && loaded && (
        <div class="alert" data-kind="warn" data-testid="switch-confirm">
          <p style={{ margin: 0 }}>
            The conductor holds one model at a time: {modelLabel(loaded)} is unloaded first, and nothing can
            be planned until {modelLabel(switchTo)} has loaded (downloaded first if it is not in the cache).
          </p>
          <div class="row" style={{ marginTop: '0.5rem' }}>
            <button
              type="button"
              class="primary"
              ref={confirmRef}
              onClick={confirmSwitch}
              data-testid="confirm-switch"
            >
              Unload {modelLabel(loaded)} and load {modelLabel(switchTo)}
            </button>
            <button type="button" onClick={() => setSwitchTo(undefined)} data-testid="keep-model">
              Keep {modelLabel(loaded)}
            </button>
          </div>
        </div>
      )}
      {loading && state.progress && (
        <ProgressBar view={state.progress} label={`Loading ${state.label ?? 'model'}`} />
      )}
      {state.status === 'error' && (
        <div
          class="alert"
          data-kind="error"
          role="alert"
          data-testid="model-error"
          data-suggestion={hints[0]?.kind ?? ''}
        >
          <p style={{ margin: 0 }}>
            Could not load {state.label}: {state.error}
          </p>
          {hints.map((hint) => (
            <p key={hint.kind} style={{ margin: '0.25rem 0 0' }} data-testid={`hint-${hint.kind}`}>
              {hint.text}{' '}
              {hint.action && (
                <button type="button" onClick={hint.action.run}>
                  {hint.action.label}
                </button>
              )}
            </p>
          ))}
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
