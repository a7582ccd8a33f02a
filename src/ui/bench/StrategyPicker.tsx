import { useState } from 'preact/hooks';
import { namerFor } from '../../app/worker-names.ts';
import {
  missingWorkers,
  type Strategy,
  type StrategyConfig,
  strategyLabel,
} from '../../evaluation/strategies.ts';
import { singleStrategy } from '../../learning/outcome.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';

type Kind = StrategyConfig['kind'];

const KINDS: { kind: Kind; label: string; needsPlanner?: boolean }[] = [
  { kind: 'single', label: 'Single worker' },
  { kind: 'router', label: 'Router (the conductor picks one worker)', needsPlanner: true },
  { kind: 'conductor', label: 'Conductor (full workflow)', needsPlanner: true },
  { kind: 'moa', label: 'Mixture-of-Agents' },
  { kind: 'pipeline', label: 'Planner → executor → verifier' },
  { kind: 'self-consistency', label: 'Self-consistency (majority of k samples)' },
  { kind: 'run-fix', label: 'Write → run → fix (the code runner runs the code, the worker fixes it)' },
  { kind: 'reading', label: 'Reading: the document whole vs as passages (a pair)' },
];

/** A stable id from the configuration, so the same strategy cannot be added twice. */
export function strategyId(config: StrategyConfig): string {
  switch (config.kind) {
    case 'single':
      return singleStrategy(config.worker);
    case 'router':
    case 'conductor':
      return config.kind;
    case 'moa':
      return `moa:${config.proposers.join('+')}>${config.aggregator}:${config.layers}`;
    case 'pipeline':
      return `pipeline:${config.planner}>${config.executor}>${config.verifier}`;
    case 'self-consistency':
      return `sc:${config.worker}:${config.samples}`;
    case 'run-fix':
      return `run-fix:${config.writer}>${config.fixer}`;
    case 'reading':
      return `reading:${config.as}:${config.worker}`;
  }
}

/** What one "Add strategy" adds: the strategy, or for reading the pair, whole then passages. */
function configsToAdd(config: StrategyConfig): StrategyConfig[] {
  if (config.kind !== 'reading') return [config];
  return [
    { ...config, as: 'whole' },
    { ...config, as: 'passages' },
  ];
}

interface Draft {
  kind: Kind;
  worker: string;
  proposers: string[];
  aggregator: string;
  layers: string;
  planner: string;
  executor: string;
  verifier: string;
  samples: string;
  /** True once the user has changed the proposers (then an empty choice stays empty). */
  proposersChosen?: boolean;
}

function initialDraft(ids: string[]): Draft {
  const at = (i: number) => ids[i % Math.max(1, ids.length)] ?? '';
  return {
    kind: 'single',
    worker: at(0),
    proposers: ids.slice(0, 3),
    aggregator: at(0),
    layers: '1',
    planner: at(0),
    executor: at(1),
    verifier: at(2),
    samples: '3',
  };
}

/** The draft with workers that left the pool (or were never set) replaced by pool workers. */
function normalizeDraft(draft: Draft, ids: readonly string[]): Draft {
  const pick = (value: string, i: number) =>
    ids.includes(value) ? value : (ids[i % Math.max(1, ids.length)] ?? '');
  const proposers = draft.proposers.filter((id) => ids.includes(id));
  return {
    ...draft,
    worker: pick(draft.worker, 0),
    aggregator: pick(draft.aggregator, 0),
    planner: pick(draft.planner, 0),
    executor: pick(draft.executor, 1),
    verifier: pick(draft.verifier, 2),
    proposers: draft.proposersChosen || proposers.length ? proposers : ids.slice(0, 3),
  };
}

/** Builds the configuration, or says what is wrong with the draft. */
export function configFromDraft(
  draft: Draft,
  pool: readonly WorkerSpec[],
  hasPlanner: boolean,
): StrategyConfig | string {
  let config: StrategyConfig;
  switch (draft.kind) {
    case 'single':
      config = { kind: 'single', worker: draft.worker };
      break;
    case 'router':
    case 'conductor':
      if (!hasPlanner) return 'This strategy needs the on-device conductor: load a model first.';
      config = { kind: draft.kind };
      break;
    case 'moa': {
      const layers = Number(draft.layers);
      if (draft.proposers.length === 0) return 'Choose at least one proposer.';
      if (!Number.isInteger(layers) || layers < 1 || layers > 4)
        return 'Layers must be a whole number from 1 to 4.';
      config = { kind: 'moa', proposers: draft.proposers, aggregator: draft.aggregator, layers };
      break;
    }
    case 'pipeline':
      config = {
        kind: 'pipeline',
        planner: draft.planner,
        executor: draft.executor,
        verifier: draft.verifier,
      };
      break;
    case 'self-consistency': {
      const samples = Number(draft.samples);
      if (!Number.isInteger(samples) || samples < 2 || samples > 9)
        return 'k must be a whole number from 2 to 9.';
      config = { kind: 'self-consistency', worker: draft.worker, samples };
      break;
    }
    case 'run-fix':
      config = { kind: 'run-fix', writer: draft.worker, fixer: draft.worker };
      break;
    case 'reading':
      config = { kind: 'reading', worker: draft.worker, as: 'whole' };
      break;
  }
  const missing = missingWorkers(config, pool);
  if (missing.length) return `Not in the pool: ${missing.map((id) => id || '(none chosen)').join(', ')}.`;
  return config;
}

function WorkerSelect({
  id,
  label,
  value,
  pool,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  pool: readonly WorkerSpec[];
  onChange: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {pool.map((w) => (
          <option key={w.id} value={w.id}>
            {w.label === w.id ? w.id : `${w.label} (${w.id})`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Adds strategies one at a time (kind + its workers), checked against the pool; lists the chosen ones. */
export function StrategyPicker({
  pool,
  hasPlanner,
  value,
  onChange,
  disabled,
}: {
  pool: readonly WorkerSpec[];
  hasPlanner: boolean;
  value: Strategy[];
  onChange: (strategies: Strategy[]) => void;
  disabled?: boolean;
}) {
  const ids = pool.map((w) => w.id);
  const [rawDraft, setDraft] = useState<Draft>(() => initialDraft(ids));
  const draft = normalizeDraft(rawDraft, ids);
  const [problem, setProblem] = useState<string | undefined>();
  const set = (patch: Partial<Draft>) => {
    setProblem(undefined);
    setDraft((d) => ({ ...normalizeDraft(d, ids), ...patch }));
  };
  const stale = value.filter((s) => missingWorkers(s.config, pool).length > 0);

  const add = () => {
    const config = configFromDraft(draft, pool, hasPlanner);
    if (typeof config === 'string') {
      setProblem(config);
      return;
    }
    const added = configsToAdd(config)
      .map((c) => ({ id: strategyId(c), label: strategyLabel(c, namerFor(labelsOf(pool))), config: c }))
      .filter((s) => !value.some((v) => v.id === s.id));
    if (added.length === 0) {
      setProblem('This strategy is already in the list.');
      return;
    }
    onChange([...value, ...added]);
  };

  return (
    <fieldset disabled={disabled} data-testid="strategies">
      <legend>Strategies</legend>
      {value.length === 0 ? (
        <p class="muted small">No strategy chosen yet: add one or more below.</p>
      ) : (
        <ul class="bench-chosen" data-testid="chosen-strategies">
          {value.map((s) => (
            <li key={s.id} data-strategy={s.id}>
              <span>{s.label}</span>
              {missingWorkers(s.config, pool).length > 0 && (
                <span class="badge" data-status="failed">
                  needs {missingWorkers(s.config, pool).join(', ')}
                </span>
              )}
              <button
                type="button"
                class="small"
                aria-label={`Remove ${s.label}`}
                onClick={() => onChange(value.filter((x) => x.id !== s.id))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {stale.length > 0 && (
        <p class="alert" data-kind="warn">
          Some strategies name workers that are no longer in the pool; remove them before running.
        </p>
      )}
      <div class="bench-strategy-form">
        <div class="field">
          <label for="bench-kind">Kind</label>
          <select
            id="bench-kind"
            value={draft.kind}
            aria-describedby={hasPlanner ? undefined : 'bench-kind-hint'}
            onChange={(e) => set({ kind: e.currentTarget.value as Kind })}
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind} disabled={k.needsPlanner && !hasPlanner}>
                {k.label}
                {k.needsPlanner && !hasPlanner ? ' — needs the conductor' : ''}
              </option>
            ))}
          </select>
          {!hasPlanner && (
            <span id="bench-kind-hint" class="field-hint" data-testid="planner-hint">
              Router and conductor need the on-device conductor: load a model first.
            </span>
          )}
        </div>
        {(draft.kind === 'single' ||
          draft.kind === 'self-consistency' ||
          draft.kind === 'run-fix' ||
          draft.kind === 'reading') && (
          <WorkerSelect
            id="bench-worker"
            label="Worker"
            value={draft.worker}
            pool={pool}
            onChange={(worker) => set({ worker })}
          />
        )}
        {draft.kind === 'reading' && (
          <p class="field-hint" data-testid="reading-hint">
            Adds two strategies: the worker answers each question with the bench's document whole, and with
            only the passages this device finds for the question. Attach the document beside the task set.
          </p>
        )}
        {draft.kind === 'self-consistency' && (
          <div class="field">
            <label for="bench-samples">Samples (k)</label>
            <input
              id="bench-samples"
              type="number"
              min={2}
              max={9}
              value={draft.samples}
              onInput={(e) => set({ samples: e.currentTarget.value })}
            />
          </div>
        )}
        {draft.kind === 'moa' && (
          <>
            <fieldset class="bench-proposers">
              <legend>Proposers</legend>
              {pool.map((w) => (
                <label key={w.id}>
                  <input
                    type="checkbox"
                    checked={draft.proposers.includes(w.id)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      set({
                        proposersChosen: true,
                        proposers: ids.filter((id) => (id === w.id ? on : draft.proposers.includes(id))),
                      });
                    }}
                  />
                  {w.label}
                </label>
              ))}
            </fieldset>
            <WorkerSelect
              id="bench-aggregator"
              label="Aggregator"
              value={draft.aggregator}
              pool={pool}
              onChange={(aggregator) => set({ aggregator })}
            />
            <div class="field">
              <label for="bench-layers">Layers</label>
              <input
                id="bench-layers"
                type="number"
                min={1}
                max={4}
                value={draft.layers}
                onInput={(e) => set({ layers: e.currentTarget.value })}
              />
            </div>
          </>
        )}
        {draft.kind === 'pipeline' && (
          <>
            <WorkerSelect
              id="bench-planner"
              label="Planner"
              value={draft.planner}
              pool={pool}
              onChange={(planner) => set({ planner })}
            />
            <WorkerSelect
              id="bench-executor"
              label="Executor"
              value={draft.executor}
              pool={pool}
              onChange={(executor) => set({ executor })}
            />
            <WorkerSelect
              id="bench-verifier"
              label="Verifier"
              value={draft.verifier}
              pool={pool}
              onChange={(verifier) => set({ verifier })}
            />
          </>
        )}
        <div class="field bench-add">
          <button
            type="button"
            onClick={add}
            disabled={pool.length === 0 && draft.kind !== 'router' && draft.kind !== 'conductor'}
          >
            Add strategy
          </button>
        </div>
      </div>
      {problem && (
        <p class="alert" data-kind="error" role="alert" data-testid="strategy-problem">
          {problem}
        </p>
      )}
    </fieldset>
  );
}
