import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchItemResult } from '../../../src/evaluation/bench-item.ts';
import { type BenchProgress, runBench } from '../../../src/evaluation/bench-runner.ts';
import {
  majorityVote,
  missingWorkers,
  moaPlan,
  type Planner,
  runStrategy,
  type Strategy,
} from '../../../src/evaluation/strategies.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { Plan } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Two arithmetic and two fact questions; one scripted model is right on arithmetic, one on facts,
// and `mixed` is right on exactly one of each. Every accuracy below is worked out from these tables.
const TASKS: Task[] = [
  { id: 'a1', kind: 'numeric', question: 'What is 2+3?', answer: '5' },
  { id: 'a2', kind: 'numeric', question: 'What is 6*7?', answer: '42' },
  { id: 'f1', kind: 'exact', question: 'Capital of Italy?', answer: 'Rome' },
  { id: 'f2', kind: 'exact', question: 'Largest ocean?', answer: 'Pacific' },
];
const table = (a1: string, a2: string, f1: string, f2: string) => ({
  kind: 'table' as const,
  answers: {
    'What is 2+3?': `Answer: ${a1}`,
    'What is 6*7?': `Answer: ${a2}`,
    'Capital of Italy?': `Answer: ${f1}`,
    'Largest ocean?': `Answer: ${f2}`,
  },
});

let provider: TestProvider;
let pool: WorkerSpec[];
const transport = createOpenAITransport({ fetch: directFetch });

beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      { id: 'arith', behaviour: table('5', '42', 'Paris', 'Atlantic') },
      { id: 'facts', behaviour: table('4', '40', 'Rome', 'Pacific') },
      { id: 'mixed', behaviour: table('5', '41', 'Rome', 'Indian') },
      {
        id: 'slowarith',
        behaviour: table('5', '42', 'Paris', 'Atlantic'),
        latency: { firstTokenMs: 150, perTokenMs: 5 },
      },
    ],
  });
  const worker = (id: string, model: string, inputPerM: number, outputPerM: number): WorkerSpec =>
    workerSpec({
      id,
      baseURL: provider.baseURL,
      model,
      maxConcurrency: 4,
      price: { inputPerM, outputPerM },
    });
  pool = [
    worker('arith', 'arith', 1, 2),
    worker('facts', 'facts', 3, 6),
    worker('mixed', 'mixed', 1, 1),
    worker('slow', 'slowarith', 1000, 1000),
  ];
});
afterAll(() => provider.close());

const single = (worker: string): Strategy => ({
  id: `single-${worker}`,
  label: worker,
  config: { kind: 'single', worker },
});

function accuracy(results: BenchItemResult[], strategyId: string): number {
  const mine = results.filter((r) => r.strategyId === strategyId);
  return mine.filter((r) => r.correct).length / mine.length;
}

describe('strategies on the executor, against scripted models', () => {
  it('gives the accuracies computed by hand for single workers, MoA, the pipeline and self-consistency', async () => {
    const strategies: Strategy[] = [
      single('arith'),
      single('facts'),
      {
        id: 'moa',
        label: 'MoA',
        config: { kind: 'moa', proposers: ['arith', 'facts'], aggregator: 'mixed', layers: 2 },
      },
      {
        id: 'pipe',
        label: 'P-E-V',
        config: { kind: 'pipeline', planner: 'arith', executor: 'facts', verifier: 'mixed' },
      },
      { id: 'sc', label: 'SC', config: { kind: 'self-consistency', worker: 'facts', samples: 3 } },
    ];
    provider.clearRequests();
    const results = await runBench({ tasks: TASKS, strategies, pool, transport, concurrency: 3 }).finished;
    expect(results).toHaveLength(TASKS.length * strategies.length);
    expect(accuracy(results, 'single-arith')).toBe(0.5); // a1, a2
    expect(accuracy(results, 'single-facts')).toBe(0.5); // f1, f2
    expect(accuracy(results, 'moa')).toBe(0.5); // the aggregator (mixed): a1, f1
    expect(accuracy(results, 'pipe')).toBe(0.5); // the verifier (mixed): a1, f1
    expect(accuracy(results, 'sc')).toBe(0.5); // facts three times
    // MoA 2 proposers x 2 layers + aggregator = 5 requests per task; SC 3; pipeline 3; singles 1 each.
    const chats = provider.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(TASKS.length * (1 + 1 + 5 + 3 + 3));
    const moaA1 = results.find((r) => r.strategyId === 'moa' && r.taskId === 'a1')!;
    expect(moaA1.steps.map((s) => s.worker)).toEqual(['arith', 'facts', 'arith', 'facts', 'mixed']);
    expect(moaA1.steps.map((s) => s.sees)).toEqual([[], [], [0, 1], [0, 1], [2, 3]]);
    expect(Object.keys(moaA1.tokensByWorker).sort()).toEqual(['arith', 'facts', 'mixed']);
    // Tokens and cost are what the provider counted, priced per worker.
    const single1 = results.find((r) => r.strategyId === 'single-facts' && r.taskId === 'f1')!;
    expect(single1.completionTokens).toBe(2); // "Answer:" + " Rome"
    expect(single1.cost).toBeCloseTo((single1.promptTokens * 3 + 2 * 6) / 1e6, 12);
  });

  it('runs the router and conductor through the planner, and marks unparsed plans', async () => {
    const planner: Planner = {
      async plan(question, mode) {
        const worker = /\d/.test(question) ? 'arith' : 'facts';
        if (mode === 'router')
          return { plan: { steps: [{ worker, task: 'Answer.', sees: [] }] }, parsed: true };
        const plan: Plan = {
          steps: [
            { worker: 'mixed', task: 'Draft an answer.', sees: [] },
            { worker, task: 'Give the final answer.', sees: 'all' },
          ],
        };
        return { plan, parsed: question !== 'Largest ocean?' };
      },
    };
    const strategies: Strategy[] = [
      { id: 'router', label: 'Router', config: { kind: 'router' } },
      { id: 'conductor', label: 'Conductor', config: { kind: 'conductor' } },
    ];
    const results = await runBench({ tasks: TASKS, strategies, pool, transport, planner }).finished;
    expect(accuracy(results, 'router')).toBe(1);
    expect(accuracy(results, 'conductor')).toBe(1);
    expect(results.filter((r) => !r.parsed).map((r) => `${r.strategyId}:${r.taskId}`)).toEqual([
      'conductor:f2',
    ]);
    const withoutPlanner = await runBench({ tasks: TASKS.slice(0, 1), strategies, pool, transport }).finished;
    expect(withoutPlanner.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(withoutPlanner[0]!.error).toMatch(/needs the on-device conductor/);
  });

  it('votes on what the scorer compares, earliest answer on ties', () => {
    const numeric = { kind: 'numeric' as const };
    expect(majorityVote(['Answer: 4', 'it is 5', 'Answer: 5.0', 'x'], numeric)).toBe('it is 5');
    expect(majorityVote(['Answer: Rome', 'answer: rome.', 'Answer: Paris'], { kind: 'exact' })).toBe(
      'Answer: Rome',
    );
    expect(majorityVote(['(A)', '(B)'], { kind: 'choice', choices: ['a', 'b'] })).toBe('(A)');
  });

  it('builds MoA layers and reports workers missing from the pool', () => {
    expect(moaPlan(['p', 'q', 'r'], 'agg', 1).steps.map((s) => s.sees)).toEqual([[], [], [], [0, 1, 2]]);
    expect(
      missingWorkers({ kind: 'moa', proposers: ['arith', 'gone'], aggregator: 'nope', layers: 1 }, pool),
    ).toEqual(['gone', 'nope']);
  });

  it('a strategy run can be cancelled', async () => {
    const controller = new AbortController();
    const running = runStrategy({ kind: 'single', worker: 'slow' }, TASKS[0]!, {
      pool,
      transport,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 30);
    const run = await running;
    expect(run.result.status).toBe('cancelled');
    expect(run.answer).toBeUndefined();
  });
});

describe('the bench runner', () => {
  it('stops before the spend cap would be passed, estimating from what items have cost', async () => {
    // `slow` costs $1000 per million tokens each way: a task costs about a cent.
    const strategies = [single('slow')];
    const tasks = [...TASKS, ...TASKS.map((t) => ({ ...t, id: `${t.id}-again` }))];
    const first = await runBench({ tasks: tasks.slice(0, 1), strategies, pool, transport }).finished;
    const perTask = first[0]!.cost;
    expect(perTask).toBeGreaterThan(0);
    const cap = perTask * 3.5;
    const progress: BenchProgress[] = [];
    const results = await runBench({
      tasks,
      strategies,
      pool,
      transport,
      concurrency: 2,
      spendCapUsd: cap,
      done: first,
      onProgress: (p) => progress.push(p),
    }).finished;
    const spent = results.reduce((sum, r) => sum + r.cost, 0);
    expect(spent).toBeLessThanOrEqual(cap);
    expect(results.length).toBeLessThan(tasks.length);
    expect(results.length).toBeGreaterThanOrEqual(3);
    const last = progress.at(-1)!;
    expect(last.state).toBe('capped');
    expect(last.stopReason).toMatch(/spend cap/);
  });

  it('with no cost seen yet, a cap below the conservative estimate starts nothing', async () => {
    provider.clearRequests();
    const bench = runBench({
      tasks: TASKS,
      strategies: [single('slow')],
      pool,
      transport,
      spendCapUsd: 0.001,
    });
    expect(await bench.finished).toEqual([]);
    expect(bench.progress()).toMatchObject({ state: 'capped', finished: 0 });
    expect(provider.requests).toHaveLength(0);
  });

  it('pauses without starting new items, resumes, and loses no result', async () => {
    const strategies = [single('slow')];
    provider.clearRequests();
    const stored: BenchItemResult[] = [];
    const bench = runBench({
      tasks: TASKS,
      strategies,
      pool,
      transport,
      concurrency: 1,
      onResult: (r) => {
        stored.push(r);
        if (stored.length === 1) bench.pause();
      },
    });
    await new Promise((r) => setTimeout(r, 800));
    // Paused inside the first result: nothing new started while paused.
    expect(provider.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
    expect(bench.progress()).toMatchObject({ state: 'paused', finished: 1, running: 0 });
    bench.resume();
    const results = await bench.finished;
    expect(results.map((r) => r.taskId).sort()).toEqual(['a1', 'a2', 'f1', 'f2']);
    expect(stored).toHaveLength(4);

    // A later session given the stored results runs only what is missing.
    provider.clearRequests();
    const again = await runBench({ tasks: TASKS, strategies, pool, transport, done: stored.slice(0, 3) })
      .finished;
    expect(again).toHaveLength(4);
    expect(provider.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
  });

  it('is not done until the last result has been handed over and saved', async () => {
    // Two items finish together; the first save completes while the second is still being written.
    const saves: (() => void)[] = [];
    const states: string[] = [];
    let settled = false;
    const bench = runBench({
      tasks: TASKS.slice(0, 2),
      strategies: [single('slow')],
      pool,
      transport,
      concurrency: 2,
      onResult: () => new Promise<void>((resolve) => saves.push(resolve)),
      onProgress: (p) => states.push(p.state),
    });
    void bench.finished.then(() => {
      settled = true;
    });
    while (saves.length < 2) await new Promise((r) => setTimeout(r, 20));
    saves[0]!();
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(states).not.toContain('done');
    saves[1]!();
    expect(await bench.finished).toHaveLength(2);
    expect(states.filter((s) => s === 'done')).toHaveLength(1);
  });

  it('a failing onResult does not stall the bench', async () => {
    const results = await runBench({
      tasks: TASKS.slice(0, 2),
      strategies: [single('arith')],
      pool,
      transport,
      concurrency: 1,
      onResult: () => Promise.reject(new Error('disk full')),
    }).finished;
    expect(results).toHaveLength(2);
  });

  it('cancel stops in-flight items and settles', async () => {
    provider.clearRequests();
    const bench = runBench({ tasks: TASKS, strategies: [single('slow')], pool, transport, concurrency: 2 });
    await new Promise((r) => setTimeout(r, 50));
    bench.cancel();
    const results = await bench.finished;
    expect(bench.progress().state).toBe('cancelled');
    expect(results).toHaveLength(0);
  });
});
