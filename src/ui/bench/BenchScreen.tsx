import { useEffect, useState } from 'preact/hooks';
import { type Bench, UNFINISHED_BENCH } from '../../app/bench/bench.ts';
import { defaultBenchName } from '../../app/bench/bench-form.ts';
import { trajectoriesFile } from '../../app/bench/trajectories-file.ts';
import { formatDuration, formatTime } from '../../app/format.ts';
import { downloadText } from '../../app/save-file.ts';
import { namerFor } from '../../app/worker-names.ts';
import type { BenchProgress } from '../../evaluation/bench-runner.ts';
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import { SAMPLE_TASKS } from '../../evaluation/sample-tasks.ts';
import { type Planner, type Strategy, strategyLabel } from '../../evaluation/strategies.ts';
import type { ChatTransport } from '../../providers/transport.ts';
import { formatCost } from '../../shared/format-cost.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { Field } from '../Field.tsx';
import { ComparePlanners, type ComparePlannersProps } from './ComparePlanners.tsx';
import { DocumentPicker } from './DocumentPicker.tsx';
import { ResultsPanel } from './ResultsPanel.tsx';
import { StrategyPicker } from './StrategyPicker.tsx';
import { type TaskSetChoice, TaskSetPicker } from './TaskSetPicker.tsx';
import './bench.css';

export interface BenchScreenProps {
  /** The workers a new bench may use (the app's enabled pool). */
  pool: WorkerSpec[];
  /** One transport for every worker, or one per worker (egress-backed cloud transport, on-device `local`). */
  transport: ChatTransport | ((worker: WorkerSpec) => ChatTransport);
  /** The on-device conductor, for the router and conductor strategies; without it they are disabled. */
  planner?: Planner;
  /** The app's bench (src/app/bench-state.ts): its benches, progress and actions outlive this screen. */
  bench: Bench;
  /** The app's "Compare planners". */
  comparison: ComparePlannersProps['comparison'];
  /** The loaded conductor with its model's name, for "Compare planners" (which plans with nothing else). */
  conductor?: ComparePlannersProps['conductor'];
}

function stateText(progress: BenchProgress): string {
  switch (progress.state) {
    case 'running':
      return 'Running';
    case 'paused':
      return progress.running > 0
        ? `Pausing: ${progress.running} item${progress.running === 1 ? '' : 's'} in flight will finish first`
        : 'Paused';
    case 'cancelled':
      return 'Cancelled';
    case 'capped':
      return 'Stopped at the spend cap';
    case 'done':
      return 'Done';
  }
}

/** The bench: choose tasks, strategies and limits; run with progress, pause, resume, cancel; compare results. */
export function BenchScreen({ pool, transport, planner, bench, comparison, conductor }: BenchScreenProps) {
  const [taskSet, setTaskSet] = useState<TaskSetChoice>({ source: 'sample', tasks: SAMPLE_TASKS });
  const [strategies, setStrategies] = useState<Strategy[]>([]);
  const [concurrency, setConcurrency] = useState('2');
  const [spendCap, setSpendCap] = useState('');
  const [name, setName] = useState(defaultBenchName);
  // Leaving the screen pauses a running bench; it can be resumed when the screen is back.
  useEffect(() => () => bench.leave(), [bench]);
  const env = { pool, transport, ...(planner ? { planner } : {}) };
  const storeError = bench.storeError.value;
  const runs = bench.runs.value;
  const activeId = bench.activeId.value;
  const shown = bench.shown.value;
  const compare = bench.compare.value;
  const problem = bench.problem.value;
  const benchDocument = bench.document.document.value;

  const remove = (run: BenchRunRecord) => {
    if (run.id === activeId) return;
    if (confirm(`Delete the bench "${run.name}" and its results?`)) void bench.remove(run.id);
  };

  const exportShown = () => {
    if (!shown) return;
    const file = trajectoriesFile(shown);
    downloadText(file.filename, file.text, 'application/x-ndjson');
  };

  const running = activeId !== undefined;
  // The last bench started here keeps its progress panel (with its final state) once it ends.
  const p = bench.progress.value?.progress;
  const progressName = bench.progress.value?.name ?? '';
  const percent = p && p.total > 0 ? (p.finished / p.total) * 100 : 0;
  const unpriced = pool.filter((w) => !w.price).map((w) => w.label);

  return (
    <section class="bench" aria-labelledby="bench-title" data-testid="bench-screen">
      <h1 id="bench-title" class="bench-title">
        Bench
      </h1>
      <p class="muted">
        Compare strategies on your own tasks, pool and budget. Every strategy runs on the same executor, so
        tokens, cost and latency are measured alike.
      </p>
      {storeError && (
        <p class="alert" data-kind="warn" role="alert">
          {storeError}
        </p>
      )}
      {pool.length === 0 && (
        <p class="alert" data-kind="info">
          The pool is empty: add workers in Settings first.
        </p>
      )}

      <div class="card">
        <h2>New bench</h2>
        <div class="bench-setup">
          <TaskSetPicker value={taskSet} onChange={setTaskSet} disabled={running} />
          <DocumentPicker picker={bench.document} disabled={running} />
          <StrategyPicker
            pool={pool}
            hasPlanner={planner !== undefined}
            value={strategies}
            onChange={setStrategies}
            disabled={running}
          />
        </div>
        <fieldset disabled={running}>
          <legend>Limits</legend>
          <div class="row bench-limits">
            <Field id="bench-name" label="Name" value={name} onValue={setName} />
            <Field
              id="bench-concurrency"
              label="Concurrency"
              type="number"
              min={1}
              max={16}
              value={concurrency}
              onValue={setConcurrency}
            />
            <Field
              id="bench-cap"
              label="Spend cap ($)"
              type="number"
              min={0}
              step="0.01"
              placeholder="no cap"
              aria-describedby="bench-cap-hint"
              value={spendCap}
              onValue={setSpendCap}
            />
          </div>
          <p id="bench-cap-hint" class="field-hint">
            No item starts when the spend so far plus its estimated cost would pass the cap (prices from the
            pool).
            {unpriced.length > 0 && ` Workers without a price count as free: ${unpriced.join(', ')}.`}
          </p>
        </fieldset>
        {problem && (
          <p class="alert" data-kind="error" role="alert" data-testid="bench-problem">
            {problem}
          </p>
        )}
        <div class="row">
          <button
            type="button"
            class="primary"
            onClick={() =>
              void bench.start(
                { name, tasks: taskSet.tasks, strategies, document: benchDocument, concurrency, spendCap },
                env,
              )
            }
            disabled={running}
          >
            Run bench ({taskSet.tasks.length * strategies.length} items)
          </button>
        </div>
      </div>

      {p && (
        <div class="card bench-progress" data-testid="bench-progress" data-state={p.state}>
          <h2>Progress: {progressName}</h2>
          <div
            class="bench-bar"
            role="progressbar"
            aria-label="Bench progress"
            aria-valuemin={0}
            aria-valuemax={p.total}
            aria-valuenow={p.finished}
            aria-valuetext={`${p.finished} of ${p.total} items`}
          >
            <div class="bench-bar-fill" style={{ width: `${percent}%` }} />
          </div>
          <div class="progress-stats" aria-live="polite">
            <span data-testid="bench-state">{stateText(p)}</span>
            <span data-testid="bench-count">
              {p.finished}/{p.total} items
            </span>
            <span data-testid="bench-spent">spent {formatCost(p.spent)}</span>
            {p.etaMs !== undefined && p.state === 'running' && (
              <span>about {formatDuration(p.etaMs)} left</span>
            )}
          </div>
          {p.stopReason && <p class="small">{p.stopReason}</p>}
          <div class="row">
            <button type="button" onClick={() => bench.pause()} disabled={p.state !== 'running'}>
              Pause
            </button>
            <button type="button" onClick={() => bench.resume()} disabled={p.state !== 'paused'}>
              Resume
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => bench.cancel()}
              disabled={p.state !== 'running' && p.state !== 'paused'}
            >
              Cancel
            </button>
          </div>
        </div>
      )}

      {shown && (
        <div class="bench-compare" data-compare={compare ? 'true' : 'false'}>
          <ResultsPanel
            run={shown.run}
            results={shown.results}
            title={shown.run.id === activeId ? 'Running bench' : 'Results'}
            testid="bench-results"
          />
          {compare && (
            <ResultsPanel
              run={compare.run}
              results={compare.results}
              title="Compared with"
              testid="bench-compare"
            />
          )}
        </div>
      )}
      {shown && (
        <div class="row bench-actions">
          <button type="button" onClick={exportShown} disabled={shown.results.length === 0}>
            Export trajectories (JSONL)
          </button>
          <label for="bench-compare-select">Compare with</label>
          <select
            id="bench-compare-select"
            value={compare?.run.id ?? ''}
            onChange={(e) => {
              const id = e.currentTarget.value;
              if (id) void bench.show(id, 'compare');
              else bench.compare.value = undefined;
            }}
          >
            <option value="">(nothing)</option>
            {runs
              .filter((r) => r.id !== shown.run.id)
              .map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} — {formatTime(r.createdAt)}
                </option>
              ))}
          </select>
        </div>
      )}

      <div class="card">
        <h2>Stored benches</h2>
        {runs.length === 0 ? (
          <p class="muted">No bench stored yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="data" data-testid="bench-runs">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Date</th>
                  <th scope="col">Strategies</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => {
                  const interrupted = UNFINISHED_BENCH.includes(r.state) && r.id !== activeId;
                  return (
                    <tr key={r.id} data-run={r.id} data-state={r.state}>
                      <th scope="row">{r.name}</th>
                      <td>{formatTime(r.createdAt)}</td>
                      <td>
                        {r.strategies
                          .map((s) => strategyLabel(s.config, namerFor(labelsOf(r.pool))))
                          .join(', ')}
                      </td>
                      <td>
                        <span class="badge" data-status={r.state === 'capped' ? 'retrying' : r.state}>
                          {interrupted && r.state === 'running' ? 'interrupted' : r.state}
                        </span>
                      </td>
                      <td class="bench-run-actions">
                        <button
                          type="button"
                          class="small"
                          onClick={() => void bench.show(r.id, 'shown')}
                          aria-label={`Show ${r.name}`}
                        >
                          Show
                        </button>
                        {interrupted && (
                          <button
                            type="button"
                            class="small"
                            disabled={running}
                            onClick={() => void bench.resumeStored(r.id, env)}
                            aria-label={`Resume ${r.name}`}
                          >
                            Resume
                          </button>
                        )}
                        <button
                          type="button"
                          class="small danger"
                          disabled={r.id === activeId}
                          onClick={() => void remove(r)}
                          aria-label={`Delete ${r.name}`}
                        >
                          Delete
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </div>

      <ComparePlanners comparison={comparison} {...(conductor ? { conductor } : {})} />
    </section>
  );
}

export default BenchScreen;
