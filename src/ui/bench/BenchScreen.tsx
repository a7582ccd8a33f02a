import { useEffect, useRef, useState } from 'preact/hooks';
import { formatCost, formatDuration, formatTime } from '../../app/format.ts';
import {
  type BenchController,
  type BenchItemResult,
  type BenchProgress,
  runBench,
} from '../../evaluation/bench-runner.ts';
import { type BenchRunRecord, BenchStore } from '../../evaluation/bench-store.ts';
import { SAMPLE_TASKS } from '../../evaluation/sample-tasks.ts';
import { createSandboxRunner } from '../../evaluation/sandbox.ts';
import type { CodeRunner } from '../../evaluation/score.ts';
import { missingWorkers, type Planner, type Strategy } from '../../evaluation/strategies.ts';
import { exportTrajectories } from '../../evaluation/trajectories.ts';
import type { WorkerSpec } from '../../pool/types.ts';
import type { ChatTransport } from '../../providers/transport.ts';
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
  /** Where runs and results are kept; default: `BenchStore.open()` (IndexedDB `baton-bench`). */
  store?: BenchStore;
  /** Scores code tasks; default: a sandboxed iframe runner (src/evaluation/sandbox.ts), made on first need. */
  codeRunner?: CodeRunner;
}

interface Shown {
  run: BenchRunRecord;
  results: BenchItemResult[];
}

const UNFINISHED: readonly BenchRunRecord['state'][] = ['running', 'paused'];

function defaultName(): string {
  return `Bench ${new Date().toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}`;
}

/** Stored workers, refreshed from the current pool where the id still exists (base URL or price may have changed). */
function currentWorkers(stored: readonly WorkerSpec[], pool: readonly WorkerSpec[]): WorkerSpec[] {
  return stored.map((w) => pool.find((p) => p.id === w.id) ?? w);
}

function download(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started by now; the URL is released on the next turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
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
export function BenchScreen({ pool, transport, planner, store: givenStore, codeRunner }: BenchScreenProps) {
  const [taskSet, setTaskSet] = useState<TaskSetChoice>({ source: 'sample', tasks: SAMPLE_TASKS });
  const [strategies, setStrategies] = useState<Strategy[]>([]);
  const [concurrency, setConcurrency] = useState('2');
  const [spendCap, setSpendCap] = useState('');
  const [name, setName] = useState(defaultName);
  const [problem, setProblem] = useState<string | undefined>();
  const [store, setStore] = useState<BenchStore | undefined>(givenStore);
  const [storeError, setStoreError] = useState<string | undefined>();
  const [runs, setRuns] = useState<BenchRunRecord[]>([]);
  const [progress, setProgress] = useState<BenchProgress | undefined>();
  const [progressName, setProgressName] = useState('');
  const [activeId, setActiveId] = useState<string | undefined>();
  const [shown, setShown] = useState<Shown | undefined>();
  const [compare, setCompare] = useState<Shown | undefined>();
  const controller = useRef<BenchController | undefined>(undefined);
  const sandbox = useRef<(CodeRunner & { dispose(): void }) | undefined>(undefined);

  useEffect(() => {
    if (givenStore) {
      setStore(givenStore);
      return;
    }
    let closed = false;
    let opened: BenchStore | undefined;
    BenchStore.open().then(
      (s) => {
        opened = s;
        if (closed) s.close();
        else setStore(s);
      },
      (error: unknown) => setStoreError(`Results cannot be stored here: ${(error as Error).message}`),
    );
    return () => {
      closed = true;
      opened?.close();
    };
  }, [givenStore]);

  const refreshRuns = async (s = store) => {
    if (s) setRuns(await s.listRuns());
  };
  useEffect(() => {
    void refreshRuns();
  }, [store]);

  // Leaving the screen pauses the bench (items in flight still finish and are stored), so it can be resumed.
  useEffect(
    () => () => {
      controller.current?.pause();
      sandbox.current?.dispose();
    },
    [],
  );

  const runnerFor = (tasks: BenchRunRecord['tasks']): CodeRunner | undefined => {
    if (!tasks.some((t) => t.kind === 'code')) return undefined;
    if (codeRunner) return codeRunner;
    sandbox.current ??= createSandboxRunner();
    return sandbox.current;
  };

  const launch = (record: BenchRunRecord, done: BenchItemResult[]) => {
    let lastState: BenchRunRecord['state'] = record.state;
    let current = record;
    const save = (patch: Partial<BenchRunRecord>) => {
      current = { ...current, ...patch };
      if (!store) return;
      store
        .putRun(current)
        .then(() => refreshRuns())
        .catch((error: unknown) => setStoreError(`Could not save the bench: ${(error as Error).message}`));
    };
    setActiveId(record.id);
    setProgressName(record.name);
    setShown({ run: record, results: done });
    setCompare(undefined);
    const runner = runBench({
      tasks: record.tasks,
      strategies: record.strategies,
      pool: record.pool,
      transport,
      ...(planner ? { planner } : {}),
      ...(runnerFor(record.tasks) ? { codeRunner: runnerFor(record.tasks) } : {}),
      concurrency: record.concurrency,
      ...(record.spendCapUsd !== undefined ? { spendCapUsd: record.spendCapUsd } : {}),
      done,
      onResult: async (result) => {
        // Stored before it is counted, so a reload right after loses nothing. A failed write must not stall the run.
        try {
          await store?.putResult(record.id, result);
        } catch (error) {
          setStoreError(`Could not store a result: ${(error as Error).message}`);
        }
        setShown((s) => (s && s.run.id === record.id ? { ...s, results: [...s.results, result] } : s));
      },
      onProgress: (p) => {
        setProgress(p);
        if (p.state !== lastState) {
          lastState = p.state;
          save({ state: p.state, ...(p.stopReason ? { stopReason: p.stopReason } : {}) });
          setShown((s) => (s && s.run.id === record.id ? { ...s, run: current } : s));
        }
      },
    });
    controller.current = runner;
    setProgress(runner.progress());
    void runner.finished.then(() => {
      if (controller.current === runner) controller.current = undefined;
      setActiveId((id) => (id === record.id ? undefined : id));
      setShown((s) => (s && s.run.id === record.id ? { ...s, run: current } : s));
    });
  };

  const start = async () => {
    setProblem(undefined);
    const tasks = taskSet.tasks;
    if (tasks.length === 0) return setProblem('Choose a task set with at least one task.');
    if (strategies.length === 0) return setProblem('Add at least one strategy.');
    const missing = [...new Set(strategies.flatMap((s) => missingWorkers(s.config, pool)))];
    if (missing.length) return setProblem(`These workers are not in the pool: ${missing.join(', ')}.`);
    if (!planner && strategies.some((s) => s.config.kind === 'router' || s.config.kind === 'conductor'))
      return setProblem('The router and conductor strategies need the on-device conductor.');
    const limit = Math.round(Number(concurrency));
    if (!(limit >= 1 && limit <= 16)) return setProblem('Concurrency must be a whole number from 1 to 16.');
    const cap = spendCap.trim() === '' ? undefined : Number(spendCap);
    if (cap !== undefined && !(cap >= 0))
      return setProblem('The spend cap must be a number of dollars (0 or more), or empty.');
    const now = Date.now();
    const record: BenchRunRecord = {
      id: crypto.randomUUID(),
      name: name.trim() || defaultName(),
      createdAt: now,
      updatedAt: now,
      tasks,
      strategies,
      // The whole pool, as a conductor would see it; worker specs carry no keys (egress attaches them by origin).
      pool: [...pool],
      concurrency: limit,
      ...(cap !== undefined ? { spendCapUsd: cap } : {}),
      state: 'running',
    };
    try {
      await store?.putRun(record);
    } catch (error) {
      setStoreError(`Could not save the bench: ${(error as Error).message}`);
    }
    void refreshRuns();
    launch(record, []);
  };

  const resumeStored = async (id: string) => {
    if (!store || controller.current) return;
    const stored = await store.getRun(id);
    if (!stored) return;
    const record: BenchRunRecord = {
      ...stored.run,
      pool: currentWorkers(stored.run.pool, pool),
      state: 'running',
    };
    await store.putRun(record);
    launch(record, stored.results);
  };

  const show = async (id: string, into: 'shown' | 'compare') => {
    if (!store) return;
    const stored = await store.getRun(id);
    if (!stored) return;
    if (into === 'shown') setShown(stored);
    else setCompare(stored);
  };

  const remove = async (run: BenchRunRecord) => {
    if (!store || run.id === activeId) return;
    if (!confirm(`Delete the bench "${run.name}" and its results?`)) return;
    await store.deleteRun(run.id);
    if (shown?.run.id === run.id) setShown(undefined);
    if (compare?.run.id === run.id) setCompare(undefined);
    void refreshRuns();
  };

  const exportShown = () => {
    if (!shown) return;
    const text = exportTrajectories(shown.results, shown.run.tasks, shown.run.strategies, shown.run.pool);
    const slug = shown.run.name.replace(/[^\w-]+/g, '-').replace(/^-|-$/g, '') || 'bench';
    download(text, `baton-trajectories-${slug}.jsonl`);
  };

  const running = activeId !== undefined;
  // The last bench started here keeps its progress panel (with its final state) once it ends.
  const p = progress;
  const percent = p && p.total > 0 ? (p.finished / p.total) * 100 : 0;
  const unpriced = pool.filter((w) => !w.price).map((w) => w.id);

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
            <div class="field">
              <label for="bench-name">Name</label>
              <input
                id="bench-name"
                value={name}
                onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
              />
            </div>
            <div class="field">
              <label for="bench-concurrency">Concurrency</label>
              <input
                id="bench-concurrency"
                type="number"
                min={1}
                max={16}
                value={concurrency}
                onInput={(e) => setConcurrency((e.currentTarget as HTMLInputElement).value)}
              />
            </div>
            <div class="field">
              <label for="bench-cap">Spend cap ($)</label>
              <input
                id="bench-cap"
                type="number"
                min={0}
                step="0.01"
                placeholder="no cap"
                aria-describedby="bench-cap-hint"
                value={spendCap}
                onInput={(e) => setSpendCap((e.currentTarget as HTMLInputElement).value)}
              />
            </div>
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
          <button type="button" class="primary" onClick={() => void start()} disabled={running}>
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
            <button
              type="button"
              onClick={() => controller.current?.pause()}
              disabled={p.state !== 'running'}
            >
              Pause
            </button>
            <button
              type="button"
              onClick={() => controller.current?.resume()}
              disabled={p.state !== 'paused'}
            >
              Resume
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => controller.current?.cancel()}
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
              const id = (e.currentTarget as HTMLSelectElement).value;
              if (id) void show(id, 'compare');
              else setCompare(undefined);
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
                  const interrupted = UNFINISHED.includes(r.state) && r.id !== activeId;
                  return (
                    <tr key={r.id} data-run={r.id} data-state={r.state}>
                      <th scope="row">{r.name}</th>
                      <td>{formatTime(r.createdAt)}</td>
                      <td>{r.strategies.map((s) => s.label).join(', ')}</td>
                      <td>
                        <span class="badge" data-status={r.state === 'capped' ? 'retrying' : r.state}>
                          {interrupted && r.state === 'running' ? 'interrupted' : r.state}
                        </span>
                      </td>
                      <td class="bench-run-actions">
                        <button
                          type="button"
                          class="small"
                          onClick={() => void show(r.id, 'shown')}
                          aria-label={`Show ${r.name}`}
                        >
                          Show
                        </button>
                        {interrupted && (
                          <button
                            type="button"
                            class="small"
                            disabled={running}
                            onClick={() => void resumeStored(r.id)}
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
    </section>
  );
}

export default BenchScreen;
