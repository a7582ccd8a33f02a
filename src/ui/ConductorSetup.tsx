import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { modelLabel } from '../app/conductor.ts';
import { conductorOptions, customModel, modelKey } from '../app/conductor-options.ts';
import { BROWSER_MODEL_NEEDS } from '../conductor/prompt-api.ts';
import { BROWSER_MODEL_NAME } from '../shared/browser-model.ts';
import type { EngineSuggestion } from '../shared/engine-errors.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { localServerUrlProblem } from '../shared/loopback.ts';
import type { ModelRef } from '../shared/model.ts';
import { modelOptionLabel } from '../shared/model-choice.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';
import { LocalServerFields } from './LocalServerFields.tsx';
import {
  corsHintFor,
  defaultDraft,
  draftOf,
  type LocalServerDraft,
  localServerModel,
} from './local-server-draft.ts';
import { ProgressBar } from './ProgressBar.tsx';

/** The select's value for the local planner server (its fields say which server and model). */
const LOCAL_SERVER = 'local-server';

type Hint = { kind: EngineSuggestion; text: string; action?: { label: string; run: () => void } };

/**
 * The engine's own suggestions after a failed load, in its order, as sentences (and a button where one
 * click does it). The CPU offer is dropped when the CPU engine is what failed.
 */
export function loadFailureHints(
  suggestions: readonly EngineSuggestion[],
  failed: ModelRef | undefined,
  cpuModel: ModelRef,
  load: (model: ModelRef) => void,
): Hint[] {
  const hints: Hint[] = [];
  for (const kind of suggestions) {
    if (kind === 'cpu') {
      if (failed?.engine === 'wllama') continue;
      hints.push({
        kind,
        text: `Use the CPU engine instead (${modelLabel(cpuModel)}): slower, but it needs no GPU.`,
        action: { label: 'Use the CPU engine', run: () => load(cpuModel) },
      });
    } else if (kind === 'server-setup') {
      const server = failed?.engine === 'local-server' ? failed : undefined;
      const cors = corsHintFor(server?.server ?? 'ollama', location.origin);
      hints.push({
        kind,
        text: `Check that the server is running${server ? ` at ${new URL(server.baseURL).origin}` : ''}. ${cors ?? ''}`.trim(),
      });
    } else if (kind === 'smaller-model') {
      hints.push({ kind, text: 'Choose a smaller model above: this one needs more than the GPU can give.' });
    } else if (kind === 'reload') {
      hints.push({
        kind,
        text: 'Reload the page to get the GPU back.',
        action: { label: 'Reload the page', run: () => location.reload() },
      });
    } else if (kind === 'retry') {
      // The button says "Try again"; the sentence says why it may work, not the same words again.
      hints.push({
        kind,
        text: 'The cause may have passed (a dropped connection, a busy device).',
        ...(failed ? { action: { label: 'Try again', run: () => load(failed) } } : {}),
      });
    } else {
      hints.push({ kind, text: "Check the model's id or URL, or choose another model above." });
    }
  }
  return hints;
}

/**
 * The conductor model: the recommendation for this device and why, a choice of others (a custom URL, or a
 * bigger planner on a local server), the download with a real progress bar, and the storage status. Each engine holds one model at a time,
 * so switching unloads the current model first: the user confirms that before it happens.
 */
export function ConductorSetup() {
  const app = useAppState();
  const state = app.conductor.state.value;
  const storage = app.storage.storageStatus.value;
  // Chrome's model may have to be downloaded first: that starts here, in the click, as Chrome requires.
  const load = (model: ModelRef) =>
    void (model.engine === 'prompt-api'
      ? app.conductor.useBrowserModel(app.storage)
      : app.conductor.load(model, app.storage));
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
  const selectedKey =
    selected || (loaded?.engine === 'local-server' ? LOCAL_SERVER : choice ? modelKey(choice.model) : '');
  const loading = state.status === 'loading';
  const custom =
    selectedKey === 'custom'
      ? customModel(customUrl, customLib)
      : selectedKey === LOCAL_SERVER
        ? localServerModel(serverDraft)
        : undefined;
  const selectedModel =
    selectedKey === 'custom' || selectedKey === LOCAL_SERVER
      ? typeof custom === 'object'
        ? custom
        : undefined
      : options.find((o) => modelKey(o) === selectedKey);
  const selectedIsLoaded = !!loaded && !!selectedModel && modelKey(loaded) === modelKey(selectedModel);

  const start = () => {
    if (typeof custom === 'string') {
      if (selectedKey === LOCAL_SERVER) {
        // A refused URL is explained under its field as it is typed: go there; the alert says the rest.
        const urlRefused = localServerUrlProblem(serverDraft.baseURL) !== undefined;
        setServerError(urlRefused ? undefined : custom);
        if (urlRefused) document.getElementById('local-server-url')?.focus();
      } else setCustomError(custom);
      return;
    }
    setCustomError(undefined);
    setServerError(undefined);
    const model = selectedModel;
    if (!model) return;
    if (loaded && modelKey(loaded) !== modelKey(model)) setSwitchTo(model);
    else load(model);
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
    !!state.model &&
    !!selectedModel &&
    modelKey(state.model) === modelKey(selectedModel) &&
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
            <option value="custom">Custom model by URL…</option>
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
                checked={!!fallback && modelKey(fallback) === modelKey(fallbackCandidate)}
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
      {selectedKey === 'custom' && (
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
