import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { CATALOG, presetById } from '../providers/catalog.ts';
import { offersWebSearch } from '../providers/web-search.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { useAppState } from './app-context.ts';
import { ConnectSrcHint } from './ConnectSrcHint.tsx';
import { PoolTable } from './PoolTable.tsx';
import {
  type CostTier,
  type Draft,
  draftFor,
  draftFromWorker,
  nextWorkerId,
  priceUnknown,
  sameWorkerIn,
  sameWorkerText,
  withModel,
  workerFromDraft,
} from './pool-draft.ts';

/** A built-in worker (the on-device model, the code sandbox) offered to the conductor or not. */
function BuiltInWorkerToggle(props: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  testId: string;
  children: ComponentChildren;
}) {
  return (
    <label style={{ fontWeight: 400, display: 'block', marginBottom: '0.5rem' }}>
      <input
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
        data-testid={props.testId}
      />{' '}
      {props.children}
    </label>
  );
}

/** The pool: workers (provider + model + label + strengths + price + concurrency), enabled or not. */
export function PoolPanel() {
  const app = useAppState();
  const {
    pool,
    poolError,
    includeLocal,
    setIncludeLocal,
    includeRun,
    setIncludeRun,
    includeRunTool,
    setIncludeRunTool,
    saveWorker,
    deleteWorker,
  } = app.pool;
  const { connections } = app;
  const workers = pool.value;
  const [draft, setDraft] = useState<Draft>(() => draftFor(CATALOG[0]?.id ?? 'openai'));
  const [problem, setProblem] = useState<string | undefined>();
  /** What the last Add did, for screen readers (the form itself starts again). */
  const [added, setAdded] = useState<string | undefined>();
  const preset = presetById(draft.providerId);
  /**
   * A change the user makes to the form: what the last Add said ("already in the pool", "Added …") was
   * about the draft before it, so it goes.
   */
  const change = (update: (d: Draft) => Draft) => {
    setDraft(update);
    setProblem(undefined);
    setAdded(undefined);
  };
  const set = (patch: Partial<Draft>) => change((d) => ({ ...d, ...patch }));
  // A price the user types is theirs: a later model change must not clear it.
  const setOwnPrice = (patch: Partial<Draft>) => change(({ pricedBy: _from, ...d }) => ({ ...d, ...patch }));
  const unknownPrice = priceUnknown(draft);
  const checking = connections.checking.value;
  const check = connections.check.value;
  const discovered = connections.modelsAt({ providerId: draft.providerId, baseURL: draft.baseURL.trim() });
  /** The worker being edited; undefined while the form adds a new one. */
  const [editing, setEditing] = useState<WorkerSpec | undefined>();
  const formTitle = useRef<HTMLHeadingElement>(null);

  const startEdit = (worker: WorkerSpec) => {
    setEditing(worker);
    setDraft(draftFromWorker(worker));
    setProblem(undefined);
    connections.clearCheck();
    // The form is below the table: take the user (and the focus) there.
    requestAnimationFrame(() => formTitle.current?.focus());
  };
  const stopEdit = () => {
    setEditing(undefined);
    setDraft(draftFor(CATALOG[0]?.id ?? 'openai'));
    setProblem(undefined);
  };

  const testConnection = () =>
    connections.test({
      providerId: draft.providerId,
      baseURL: draft.baseURL.trim(),
      model: draft.model.trim(),
    });
  const discover = () =>
    connections.discover({ providerId: draft.providerId, baseURL: draft.baseURL.trim() });

  return (
    <section class="card" aria-labelledby="pool-panel-title" data-testid="pool-panel">
      <h2 id="pool-panel-title">Pool</h2>
      {poolError.value && (
        <p class="alert" data-kind="error" role="alert">
          {poolError.value}
        </p>
      )}
      <BuiltInWorkerToggle checked={includeLocal.value} onChange={setIncludeLocal} testId="include-local">
        Offer the on-device model to the conductor as the worker <code>local</code> (private, offline, small)
      </BuiltInWorkerToggle>
      <BuiltInWorkerToggle checked={includeRun.value} onChange={setIncludeRun} testId="include-run">
        Offer the code sandbox to the conductor as the worker <code>run</code>: it runs the Python or
        JavaScript of the steps it sees, on this device, and answers with the output or the error
      </BuiltInWorkerToggle>
      <BuiltInWorkerToggle
        checked={includeRun.value && includeRunTool.value}
        disabled={!includeRun.value}
        onChange={setIncludeRunTool}
        testId="include-run-tool"
      >
        Also offer it inside steps as the tool <code>sandbox.run_python</code>: a step's own model runs Python
        here and reads the output (adds a line to every plan's prompt)
      </BuiltInWorkerToggle>
      <PoolTable
        workers={workers}
        onSave={(worker) => void saveWorker(worker)}
        onEdit={startEdit}
        onRemove={(w) => {
          if (editing?.id === w.id) stopEdit();
          void deleteWorker(w.id);
        }}
      />
      <form
        data-testid="add-worker"
        onSubmit={(e) => {
          e.preventDefault();
          const worker = editing
            ? // The stored worker as it is now (enabled may have been toggled in the table meanwhile).
              workerFromDraft(draft, editing.id, workers.find((w) => w.id === editing.id) ?? editing)
            : workerFromDraft(draft, nextWorkerId(workers.map((w) => w.id)));
          if (typeof worker === 'string') {
            setProblem(worker);
            return;
          }
          const twin = sameWorkerIn(worker, workers, editing?.id);
          if (twin) {
            setProblem(sameWorkerText(twin));
            return;
          }
          setProblem(undefined);
          setAdded(undefined);
          void saveWorker(worker).then((saved) => {
            if (!saved) return;
            if (editing) {
              stopEdit();
              return;
            }
            // Added: the form starts again for the same provider, so pressing Add again adds nothing twice.
            setDraft(draftFor(draft.providerId));
            connections.clearCheck();
            setAdded(`Added “${worker.label}” to the pool.`);
          });
        }}
      >
        <h3 style={{ marginTop: '1rem' }} tabIndex={-1} ref={formTitle} data-testid="worker-form-title">
          {editing ? `Edit ${editing.label} (${editing.id})` : 'Add a worker'}
        </h3>
        <div class="row">
          <div class="field">
            <label for="worker-provider">Provider</label>
            <select
              id="worker-provider"
              value={draft.providerId}
              onChange={(e) => {
                const providerId = e.currentTarget.value;
                change(() => draftFor(providerId));
              }}
            >
              {CATALOG.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field" style={{ flex: 1 }}>
            <label for="worker-base">Base URL</label>
            <input
              id="worker-base"
              type="url"
              value={draft.baseURL}
              readOnly={preset ? !preset.baseURLEditable : false}
              onInput={(e) => set({ baseURL: e.currentTarget.value })}
            />
            <ConnectSrcHint baseURL={draft.baseURL} />
          </div>
        </div>
        <div class="row">
          <div class="field">
            <label for="worker-model">Model</label>
            <input
              id="worker-model"
              list="worker-model-options"
              value={draft.model}
              onInput={(e) => {
                const id = e.currentTarget.value;
                change((d) => withModel(d, id));
              }}
            />
            <datalist id="worker-model-options">
              {preset?.models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
              {discovered
                .filter((id) => !preset?.models.some((m) => m.id === id))
                .map((id) => (
                  <option key={id} value={id} />
                ))}
            </datalist>
          </div>
          <div class="field">
            <label for="worker-label">Label</label>
            <input
              id="worker-label"
              value={draft.label}
              onInput={(e) => set({ label: e.currentTarget.value, autoLabel: false })}
            />
          </div>
          <div class="field">
            <label for="worker-concurrency">Concurrency</label>
            <input
              id="worker-concurrency"
              type="number"
              min={1}
              max={16}
              value={draft.maxConcurrency}
              onInput={(e) => set({ maxConcurrency: e.currentTarget.value })}
            />
          </div>
        </div>
        <div class="field">
          <label for="worker-strengths">Strengths (one line the conductor reads)</label>
          <input
            id="worker-strengths"
            value={draft.strengths}
            onInput={(e) => set({ strengths: e.currentTarget.value })}
          />
        </div>
        <div class="row">
          <div class="field">
            <label for="worker-price-in">Input $ per million tokens</label>
            <input
              id="worker-price-in"
              inputMode="decimal"
              value={draft.inputPerM}
              aria-describedby={unknownPrice ? 'worker-price-hint' : undefined}
              onInput={(e) => setOwnPrice({ inputPerM: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="worker-price-out">Output $ per million tokens</label>
            <input
              id="worker-price-out"
              inputMode="decimal"
              value={draft.outputPerM}
              aria-describedby={unknownPrice ? 'worker-price-hint' : undefined}
              onInput={(e) => setOwnPrice({ outputPerM: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="worker-cost-tier">Cost tier (the conductor reads it)</label>
            <select
              id="worker-cost-tier"
              value={draft.costTier}
              onChange={(e) => set({ costTier: e.currentTarget.value as CostTier | '' })}
            >
              <option value="">Not set</option>
              <option value="low">Low</option>
              <option value="medium">Medium</option>
              <option value="high">High</option>
            </select>
          </div>
        </div>
        {offersWebSearch(draft.providerId) && (
          <label class="field-hint" style={{ display: 'block' }}>
            <input
              type="checkbox"
              checked={draft.webSearch}
              onChange={(e) => set({ webSearch: e.currentTarget.checked })}
              data-testid="worker-web-search"
            />{' '}
            Searches the web on {preset?.kind === 'custom' ? 'its server' : `${preset?.name}'s servers`}: the
            conductor sends it questions about recent events, and its sources show under its answers
          </label>
        )}
        <label class="field-hint" style={{ display: 'block' }}>
          <input
            type="checkbox"
            checked={draft.vision}
            onChange={(e) => set({ vision: e.currentTarget.checked })}
            data-testid="worker-vision"
          />{' '}
          {/* Words no other field's label holds: tests and screen readers find fields by their labels. */}
          Takes images: attached images may be sent to it (
          {presetById(draft.providerId)?.models.some((m) => m.id === draft.model)
            ? 'as the catalog says'
            : 'tick it only if it reads images'}
          )
        </label>
        {unknownPrice && (
          <p id="worker-price-hint" class="field-hint" data-testid="price-unknown">
            No price is known for {draft.model.trim() ? `“${draft.model.trim()}”` : 'this model'}: enter its
            price per million tokens, or leave both fields empty and its cost will show as unknown (—).
          </p>
        )}
        {/* The connection result carries the same hint (with this page's origin): say it once. */}
        {preset?.corsHint && !check?.hint && (
          <p class="field-hint">{preset.corsHint.replaceAll('<this page origin>', location.origin)}</p>
        )}
        {check && (
          <div
            class="alert"
            data-kind={check.ok ? 'ok' : 'error'}
            role="status"
            data-testid="connection-result"
          >
            <p style={{ margin: 0 }}>{check.text}</p>
            {check.hint && <p style={{ margin: '0.25rem 0 0' }}>{check.hint}</p>}
          </div>
        )}
        {problem && (
          <p class="alert" data-kind="error" role="alert" data-testid="worker-problem">
            {problem}
          </p>
        )}
        <p class="small muted" role="status" data-testid="worker-added">
          {added ?? ''}
        </p>
        <div class="row">
          <button type="submit" class="primary" data-testid="add-worker-submit">
            {editing ? 'Save changes' : 'Add to pool'}
          </button>
          {editing && (
            <button type="button" onClick={stopEdit} data-testid="cancel-edit">
              Cancel editing
            </button>
          )}
          <button type="button" onClick={() => void testConnection()} disabled={checking}>
            Test connection
          </button>
          {preset?.hasModelsEndpoint && (
            <button type="button" onClick={() => void discover()} disabled={checking}>
              Discover models
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
