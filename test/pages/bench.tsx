import { render } from 'preact';
import type { CodeRunner } from '../../src/evaluation/score.ts';
import type { Planner } from '../../src/evaluation/strategies.ts';
import { createOpenAITransport } from '../../src/providers/openai-transport.ts';
import { createSandboxRunner } from '../../src/sandbox/code-runner.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { directFetch } from '../provider/direct-fetch.ts';
import '../../src/ui/styles.css';

// Harness for the bench's browser specs: the bench screen alone, with a pool on the test provider.
// ?base=<provider baseURL>&models=arith,facts[&labels=Arith,Facts][&theme=dark]. Each model id becomes a
// worker of that id, labelled as `labels` says (else by its id).
const params = new URLSearchParams(location.search);
const base = params.get('base') ?? 'http://127.0.0.1:9/v1';
const models = (params.get('models') ?? 'arith,facts').split(',').filter(Boolean);
const labels = (params.get('labels') ?? '').split(',');
document.documentElement.dataset.theme = params.get('theme') === 'dark' ? 'dark' : 'light';

const pool: WorkerSpec[] = models.map((model, i) => ({
  id: model,
  label: labels[i] || model,
  strengths: '',
  providerId: 'custom',
  baseURL: base,
  model,
  maxConcurrency: 4,
  enabled: true,
  price: { inputPerM: 1 + 2 * i, outputPerM: 2 + 4 * i },
}));

// ?planner=1: a scripted conductor (router: questions with a digit go to `arith`, the rest to `facts`).
const planner: Planner | undefined =
  params.get('planner') === '1'
    ? {
        async plan(question, mode) {
          const worker = /\d/.test(question) ? 'arith' : 'facts';
          const steps =
            mode === 'router'
              ? [{ worker, task: 'Answer the question.', sees: [] }]
              : [
                  { worker: 'facts', task: 'Draft an answer.', sees: [] },
                  { worker, task: 'Give the final answer.', sees: 'all' as const },
                ];
          return { plan: { steps }, parsed: true };
        },
      }
    : undefined;

// ?codeTimeoutMs=N: the real sandbox runner with a longer time limit than the Bench's, so a test can let a
// runaway answer reach the heap limit (and crash its runner) before the clock stops it, or let a right
// Python answer finish on a loaded machine. ?pyodide=<url>: the real sandbox runner, fetching Pyodide's
// files from there (a host that has none, to see Python answers that cannot be scored here).
const codeTimeoutMs = Number(params.get('codeTimeoutMs') ?? Number.NaN);
const pyodideUrl = params.get('pyodide');
const sandbox =
  Number.isFinite(codeTimeoutMs) || pyodideUrl
    ? createSandboxRunner(pyodideUrl ? { pyodideUrl } : {})
    : undefined;
const codeRunner: CodeRunner | undefined =
  sandbox && Number.isFinite(codeTimeoutMs)
    ? {
        run: (code, tests) => sandbox.run(code, tests, codeTimeoutMs),
        runPython: (run) => sandbox.runPython(run, codeTimeoutMs),
      }
    : sandbox;

// Loaded the way the app will load it: as lazy chunks, the bench's state made as the app state makes it.
const [
  { BenchScreen },
  { createBench },
  { createPlannerComparison },
  { BenchStore },
  { PlannerCompareStore },
] = await Promise.all([
  import('../../src/ui/bench/BenchScreen.tsx'),
  import('../../src/app/bench/bench.ts'),
  import('../../src/app/planner-comparison.ts'),
  import('../../src/evaluation/bench-store.ts'),
  import('../../src/evaluation/compare-planners-store.ts'),
]);
const bench = createBench({
  openStore: () => BenchStore.open(),
  codeRunner: () => codeRunner ?? createSandboxRunner(),
});
const comparison = createPlannerComparison({ openStore: () => PlannerCompareStore.open() });
await Promise.all([bench.open(), comparison.open()]);
render(
  <BenchScreen
    pool={pool}
    transport={createOpenAITransport({ fetch: directFetch })}
    bench={bench}
    comparison={comparison}
    {...(planner ? { planner } : {})}
  />,
  document.getElementById('app')!,
);
document.body.dataset.ready = 'true';
