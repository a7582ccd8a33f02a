import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBench } from '../../../src/app/bench/bench.ts';
import { type BenchForm, benchFromForm } from '../../../src/app/bench/bench-form.ts';
import { BENCH_VAULT_LOCKED, currentWorkers } from '../../../src/app/bench/launching.ts';
import { createVaultUnlock } from '../../../src/app/vault-unlock.ts';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { BenchStore } from '../../../src/evaluation/bench-store.ts';
import type { PythonRun, PythonVerdict } from '../../../src/evaluation/python-program.ts';
import type { CodeRunner } from '../../../src/evaluation/score.ts';
import type { Planner, Strategy } from '../../../src/evaluation/strategies.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { until } from './signal-until.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ cors: 'open' });
});
afterAll(() => provider.close());

function worker(id: string, baseURL = provider.baseURL): WorkerSpec {
  return workerSpec({
    id,
    label: `Worker ${id}`,
    baseURL,
    model: 'echo',
    price: { inputPerM: 0, outputPerM: 0 },
  });
}

const TASKS: Task[] = [
  { id: 't1', kind: 'exact', question: 'one', answer: 'one' },
  { id: 't2', kind: 'exact', question: 'two', answer: 'two' },
];
const single: Strategy = { id: 'single-w1', label: 'w1 alone', config: { kind: 'single', worker: 'w1' } };
const router: Strategy = { id: 'router', label: 'Router', config: { kind: 'router' } };
/** These tasks have no code to run: the code runner is never made. */
const noCodeRunner = (): never => {
  throw new Error('No code task here');
};

function form(overrides: Partial<BenchForm> = {}): BenchForm {
  return {
    name: 'My bench',
    tasks: TASKS,
    strategies: [single],
    concurrency: '2',
    spendCap: '',
    ...overrides,
  };
}

describe('the bench form', () => {
  const pool = [worker('w1', 'http://127.0.0.1:1/v1')];
  const problem = (f: BenchForm, planner?: Planner) => {
    const made = benchFromForm(f, { pool, ...(planner ? { planner } : {}) });
    return made.ok ? undefined : made.problem;
  };

  it('names what is wrong, in form order', () => {
    expect(problem(form({ tasks: [] }))).toBe('Choose a task set with at least one task.');
    expect(problem(form({ strategies: [] }))).toBe('Add at least one strategy.');
    expect(problem(form({ strategies: [{ ...single, config: { kind: 'single', worker: 'gone' } }] }))).toBe(
      'These workers are not in the pool: gone.',
    );
    expect(problem(form({ strategies: [router] }))).toBe(
      'The router and conductor strategies need the on-device conductor.',
    );
    expect(problem(form({ concurrency: '0' }))).toBe('Concurrency must be a whole number from 1 to 16.');
    expect(problem(form({ concurrency: 'many' }))).toBe('Concurrency must be a whole number from 1 to 16.');
    expect(problem(form({ spendCap: '-1' }))).toBe(
      'The spend cap must be a number of dollars (0 or more), or empty.',
    );
  });

  it('makes a running bench over the whole pool, with a default name when none is given', () => {
    const made = benchFromForm(form({ name: '  ', concurrency: '3', spendCap: '0.5' }), { pool }, 1000);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.record).toMatchObject({
      concurrency: 3,
      spendCapUsd: 0.5,
      state: 'running',
      createdAt: 1000,
    });
    expect(made.record.name).toMatch(/^Bench /);
    expect(made.record.pool).toEqual(pool);
  });

  it('refreshes stored workers from the pool, keeping the ones no longer in it', () => {
    const moved = { ...worker('w1'), baseURL: 'http://127.0.0.1:2/v1' };
    expect(currentWorkers([worker('w1'), worker('w2')], [moved])).toEqual([moved, worker('w2')]);
  });
});

describe('a bench run by the app layer', () => {
  const transport = createOpenAITransport({ fetch: directFetch });

  it('stores the bench and each result, and lists it as done once it ends', async () => {
    const store = await BenchStore.open('bench-app-start');
    const bench = createBench({ openStore: async () => store, codeRunner: noCodeRunner });
    await bench.open();
    const env = { pool: [worker('w1')], transport };
    const controller = await bench.start(form(), env);
    expect(controller).toBeDefined();
    expect(bench.activeId.value).toBeDefined();
    await controller!.finished;
    await bench.refreshRuns();

    const [stored] = bench.runs.value;
    expect(stored?.state).toBe('done');
    expect((await store.getRun(stored!.id))?.results.map((r) => r.taskId).sort()).toEqual(['t1', 't2']);
    expect(bench.shown.value?.results).toHaveLength(2);
    expect(bench.activeId.value).toBeUndefined();
    expect(bench.progress.value?.progress.finished).toBe(2);
  });

  it('keeps each scored item as a bench outcome, its scorer’s verdict as the mark', async () => {
    const store = await BenchStore.open('bench-app-outcomes');
    const outcomes = await openOutcomeStore('bench-app-outcomes-learning');
    const bench = createBench({
      openStore: async () => store,
      codeRunner: noCodeRunner,
      recordOutcome: (outcome) => outcomes.put(outcome),
    });
    await bench.open();
    const controller = await bench.start(form(), { pool: [worker('w1')], transport });
    await controller!.finished;

    const results = bench.shown.value!.results;
    const kept = await outcomes.list();
    expect(kept.map((o) => o.question).sort()).toEqual(['one', 'two']);
    for (const outcome of kept) {
      const result = results.find((r) => outcome.runId.endsWith(`:${r.taskId}:${r.strategyId}`))!;
      expect(outcome).toMatchObject({
        source: 'bench',
        strategy: 'single:w1',
        good: result.correct,
        workerIds: ['w1'],
        workerModels: { w1: 'echo' },
      });
    }
  });

  it('does not start, and says why, when the form is not valid', async () => {
    const bench = createBench({
      openStore: () => BenchStore.open('bench-app-invalid'),
      codeRunner: noCodeRunner,
    });
    await bench.open();
    expect(await bench.start(form({ strategies: [] }), { pool: [worker('w1')], transport })).toBeUndefined();
    expect(bench.problem.value).toBe('Add at least one strategy.');
    expect(bench.runs.value).toEqual([]);
  });

  it('resumes an interrupted bench without running its stored results again', async () => {
    const store = await BenchStore.open('bench-app-resume');
    const first = createBench({ openStore: async () => store, codeRunner: noCodeRunner });
    await first.open();
    const env = { pool: [worker('w1')], transport };
    await (await first.start(form({ tasks: [TASKS[0]!] }), env))!.finished;
    const done = (await store.getRun(first.runs.value[0]!.id))!.results;

    // A bench of both tasks that a reload cut off after the first result.
    const made = benchFromForm(form(), env);
    if (!made.ok) throw new Error(made.problem);
    await store.putRun(made.record);
    await store.putResult(made.record.id, done[0]!);
    provider.clearRequests();

    const second = createBench({ openStore: async () => store, codeRunner: noCodeRunner });
    await second.open();
    await (await second.resumeStored(made.record.id, env))!.finished;
    const chats = provider.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(1);
    const resumed = await store.getRun(made.record.id);
    expect(resumed?.run.state).toBe('done');
    expect(resumed?.results.map((r) => r.taskId).sort()).toEqual(['t1', 't2']);
  });
});

describe('a bench of published Python tasks only (HumanEval, MBPP, LiveCodeBench)', () => {
  // The HumanEval record's shape, as its importer makes it: no JavaScript task anywhere in the set.
  const humanEval: Task = {
    id: 'HumanEval/0',
    kind: 'python',
    question: 'Complete this Python function.\n\n```python\ndef add_pair(a, b):\n```',
    answer: '',
    python: {
      style: 'check',
      prompt: 'def add_pair(a, b):\n',
      tests: 'def check(candidate):\n    assert candidate(2, 3) == 5\n',
      entryPoint: 'add_pair',
    },
  };
  const worker = (id: string, text: string): WorkerSpec =>
    workerSpec({
      id,
      label: `Worker ${id}`,
      baseURL: provider.baseURL,
      model: `fixed:${text}`,
    });
  /** Pyodide cannot run in node: this runner passes a program whose add_pair adds, and records each run. */
  function scriptedPython(): CodeRunner & { runs: PythonRun[] } {
    const runs: PythonRun[] = [];
    return {
      runs,
      run: async () => ({ passed: false, message: 'not JavaScript' }),
      runPython: async (run): Promise<PythonVerdict> => {
        runs.push(run);
        const adds = run.program.includes('return a + b');
        return { passed: adds, message: adds ? 'all tests passed' : 'AssertionError', stdout: '' };
      },
    };
  }

  it('makes the code runner and scores every item with it', async () => {
    const runner = scriptedPython();
    let made = 0;
    const bench = createBench({
      openStore: () => BenchStore.open('bench-app-python-only'),
      codeRunner: () => {
        made++;
        return runner;
      },
    });
    await bench.open();
    const pool = [
      worker('right', '```python\ndef add_pair(a, b):\n    return a + b\n```'),
      worker('wrong', '```python\ndef add_pair(a, b):\n    return a - b\n```'),
    ];
    const strategies: Strategy[] = pool.map((w) => ({
      id: `single:${w.id}`,
      label: w.label,
      config: { kind: 'single', worker: w.id },
    }));
    const controller = await bench.start(
      { ...form(), tasks: [humanEval], strategies },
      { pool, transport: createOpenAITransport({ fetch: directFetch }) },
    );
    const results = await controller!.finished;
    expect(made).toBe(1);
    // Each answer was checked by HumanEval's own check(entry_point).
    expect(runner.runs).toHaveLength(2);
    expect(runner.runs.every((r) => r.program.includes('check(add_pair)'))).toBe(true);
    const by = Object.fromEntries(results.map((r) => [r.strategyId, r]));
    expect(by['single:right']).toMatchObject({ status: 'done', correct: true });
    expect(by['single:wrong']).toMatchObject({
      status: 'done',
      correct: false,
      scoreDetail: 'AssertionError',
    });
  });

  it('keeps an answer that could not be scored apart, with why, stored as such', async () => {
    const store = await BenchStore.open('bench-app-python-unscored');
    const bench = createBench({
      openStore: async () => store,
      codeRunner: () => ({
        run: async () => ({ passed: false, message: 'not JavaScript' }),
        runPython: async () => {
          throw new Error("Python's runtime could not be downloaded: Failed to fetch");
        },
      }),
    });
    await bench.open();
    const pool = [worker('right', '```python\ndef add_pair(a, b):\n    return a + b\n```')];
    const strategies: Strategy[] = [
      { id: 'single:right', label: 'Right', config: { kind: 'single', worker: 'right' } },
    ];
    const controller = await bench.start(
      { ...form(), tasks: [humanEval], strategies },
      { pool, transport: createOpenAITransport({ fetch: directFetch }) },
    );
    const [result] = await controller!.finished;
    expect(result).toMatchObject({
      status: 'unscored',
      notScored: "Python's runtime could not be downloaded: Failed to fetch",
    });
    const stored = await store.getRun(bench.runs.value[0]!.id);
    expect(stored?.results[0]).toMatchObject({ status: 'unscored' });
  });
});

describe('a bench with a locked vault', () => {
  const KEY = 'sk-bench-vault-0123456789abcd';
  const PASS = 'correct horse battery staple';
  let keyed: TestProvider;
  beforeAll(async () => {
    keyed = await startProvider({ cors: 'open', apiKey: KEY });
  });
  afterAll(() => keyed.close());

  it('asks for the passphrase before the first item, and runs nothing while it is not given', async () => {
    const vault = await openVault('bench-app-vault');
    await vault.saveKey({ providerId: 'custom', origin: keyed.baseURL, key: KEY });
    await vault.setPassphrase(PASS);
    vault.lock();
    const unlock = createVaultUnlock({ vault: async () => vault });
    const egress = createEgress({ vault, ledger: await openLedger('bench-app-vault-ledger') });
    const bench = createBench({
      openStore: () => BenchStore.open('bench-app-vault-store'),
      codeRunner: noCodeRunner,
      ensureUnlocked: unlock.ensureUnlocked,
    });
    await bench.open();
    const env = { pool: [worker('w1', keyed.baseURL)], transport: chatTransports(egress) };

    // Declined: no bench, no request, and the form says why.
    const declined = bench.start(form(), env);
    // A wait on the prompt itself, not a one-second poll (signal-until.ts says why).
    await until(unlock.unlockRequest, (request) => request !== undefined);
    expect(unlock.unlockRequest.value?.purpose).toBe('to run this bench');
    unlock.unlockRequest.value!.settle(false);
    expect(await declined).toBeUndefined();
    expect(bench.problem.value).toBe(BENCH_VAULT_LOCKED);
    expect(bench.runs.value).toEqual([]);
    expect(keyed.requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    // Unlocked at the prompt: every item runs with the key.
    const started = bench.start(form(), env);
    await until(unlock.unlockRequest, (request) => request !== undefined);
    await vault.unlock(PASS);
    unlock.unlockRequest.value?.settle(true);
    const results = await (await started)!.finished;
    expect(results.map((r) => r.status)).toEqual(['done', 'done']);
    expect(bench.problem.value).toBeUndefined();
    const chats = keyed.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    expect(chats.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});

describe('a bench that fails over', () => {
  it('gives an unavailable worker’s step to another, except in a single-worker strategy, which measures that worker', async () => {
    const down: WorkerSpec = { ...worker('down'), label: 'Down', model: 'fault:500' };
    const up: WorkerSpec = { ...worker('up'), label: 'Up', model: 'echo' };
    const bench = createBench({
      openStore: () => BenchStore.open('bench-app-failover'),
      codeRunner: noCodeRunner,
      failover: async () => ({}),
    });
    await bench.open();
    const strategies: Strategy[] = [
      { id: 'single:down', label: 'Down alone', config: { kind: 'single', worker: 'down' } },
      {
        id: 'moa',
        label: 'MoA',
        config: { kind: 'moa', proposers: ['down'], aggregator: 'up', layers: 1 },
      },
    ];
    const controller = await bench.start(
      { ...form({ tasks: [TASKS[0]!] }), strategies },
      { pool: [down, up], transport: createOpenAITransport({ fetch: directFetch }) },
    );
    const results = await controller!.finished;
    const by = Object.fromEntries(results.map((r) => [r.strategyId, r]));
    expect(by.moa?.status).toBe('done');
    expect(by.moa?.steps[0]).toMatchObject({ worker: 'up', takenOverFrom: 'down', state: 'done' });
    expect(by['single:down']).toMatchObject({ status: 'failed' });
    expect(by['single:down']?.steps[0]?.takenOverFrom).toBeUndefined();
  });
});
