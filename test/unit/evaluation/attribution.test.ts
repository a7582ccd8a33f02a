import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attribute, causeOf } from '../../../src/evaluation/attribution.ts';
import type { BenchItemResult } from '../../../src/evaluation/bench-item.ts';
import { runBench } from '../../../src/evaluation/bench-runner.ts';
import type { Planner, Strategy } from '../../../src/evaluation/strategies.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

const task: Task = { id: 'sum', kind: 'numeric', question: 'What is 2+3?', answer: '5' };

function result(
  over: Partial<BenchItemResult>,
  answers: [worker: string, answer: string][],
): BenchItemResult {
  const steps = answers.map(([worker, answer]) => ({
    worker,
    task: 'solve',
    sees: 'all' as const,
    state: 'done',
    answer,
  }));
  return {
    taskId: 'sum',
    strategyId: 's',
    status: 'done',
    correct: false,
    parsed: true,
    ...(answers.length ? { answer: answers.at(-1)![1] } : {}),
    promptTokens: 0,
    completionTokens: 0,
    tokensByWorker: {},
    cost: 0,
    latencyMs: 1,
    plan: { steps: steps.map(({ worker, task, sees }) => ({ worker, task, sees })) },
    steps,
    finishedAt: 1,
    ...over,
  };
}

describe('where a wrong answer went wrong', () => {
  it('right in step 1 and lost in step 2 is the synthesis', () => {
    expect(
      causeOf(
        result({}, [
          ['w1', 'Answer: 5'],
          ['w2', 'Answer: 6'],
        ]),
        task,
      ),
    ).toBe('synthesis');
  });

  it('right in no step is the workers (or the routing that chose them)', () => {
    expect(
      causeOf(
        result({}, [
          ['w1', 'Answer: 4'],
          ['w2', 'Answer: 6'],
        ]),
        task,
      ),
    ).toBe('workers');
  });

  it('an invalid plan is the planner, even if a fallback step was right', () => {
    expect(
      causeOf(
        result({ parsed: false }, [
          ['w1', 'Answer: 5'],
          ['w2', 'Answer: 6'],
        ]),
        task,
      ),
    ).toBe('planner');
  });

  it('a run that broke before any answer, and a right answer, have no worker to blame', () => {
    expect(causeOf(result({ status: 'failed', parsed: false, steps: [] }, []), task)).toBe('failed');
    expect(causeOf(result({ correct: true }, [['w1', 'Answer: 5']]), task)).toBeUndefined();
  });

  it('a step the bench scored keeps its verdict; unscorable steps say so', () => {
    const python: Task = {
      id: 'sum',
      kind: 'python',
      question: 'q',
      answer: '',
      python: { style: 'asserts', tests: 'assert f() == 1' },
    };
    const scored = result({}, [['w1', 'def f(): return 1']]);
    scored.steps[0]!.correct = true;
    expect(causeOf(scored, python)).toBe('synthesis');
    expect(causeOf(result({}, [['w1', 'def f(): return 1']]), python)).toBe('steps-unscored');
  });

  it('an unparsed plan whose fallback then broke (a stalled worker) is a failed run, not an invalid plan', () => {
    const stalled = result({ status: 'failed', parsed: false, error: 'step 0: no first token in 60 s' }, []);
    stalled.steps = [{ worker: 'w1', task: 'solve', sees: [], state: 'failed' }];
    expect(causeOf(stalled, task)).toBe('failed');
  });

  it('an item that could not be scored is neither wrong nor right: no cause, counted apart', () => {
    const unscored = result({ status: 'unscored', notScored: 'no Python runner is available here' }, [
      ['w1', 'def f(): return 1'],
    ]);
    expect(causeOf(unscored, task)).toBeUndefined();
    const [row] = attribute([unscored], [task]).strategies;
    expect(row).toMatchObject({ wrong: 0, unscored: 1 });
  });

  it("splits each strategy's wrong items by cause and counts each worker's right answers", () => {
    const { strategies, workers } = attribute(
      [
        result({ strategyId: 'moa' }, [
          ['w1', 'Answer: 5'],
          ['w2', 'Answer: 6'],
        ]),
        result({ strategyId: 'moa', taskId: 'sum' }, [
          ['w1', 'Answer: 1'],
          ['w2', 'Answer: 6'],
        ]),
        result({ strategyId: 'conductor', parsed: false }, [['w2', 'Answer: 6']]),
        result({ strategyId: 'single', correct: true }, [['w1', 'Answer: 5']]),
      ],
      [task],
    );
    expect(strategies).toEqual([
      {
        strategyId: 'moa',
        wrong: 2,
        causes: { planner: 0, synthesis: 1, workers: 1, failed: 0, 'steps-unscored': 0 },
        unscored: 0,
      },
      {
        strategyId: 'conductor',
        wrong: 1,
        causes: { planner: 1, synthesis: 0, workers: 0, failed: 0, 'steps-unscored': 0 },
        unscored: 0,
      },
      {
        strategyId: 'single',
        wrong: 0,
        causes: { planner: 0, synthesis: 0, workers: 0, failed: 0, 'steps-unscored': 0 },
        unscored: 0,
      },
    ]);
    expect(workers).toEqual([
      { workerId: 'w1', answers: 3, right: 2 },
      { workerId: 'w2', answers: 3, right: 0 },
    ]);
  });
});

describe('the bench scores every step', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startProvider({
      cors: 'open',
      models: [
        { id: 'right', behaviour: { kind: 'table', answers: { 'What is 2+3?': 'Answer: 5' } } },
        { id: 'wrong', behaviour: { kind: 'table', answers: { 'What is 2+3?': 'Answer: 4' } } },
      ],
    });
  });
  afterAll(() => provider.close());

  it('so a pipeline whose first step was right and whose later steps lost it is blamed on the synthesis', async () => {
    const worker = (id: string): WorkerSpec =>
      workerSpec({
        id,
        baseURL: provider.baseURL,
        model: id,
      });
    // The on-device conductor cannot run here; this one writes a plan that does not parse.
    const planner: Planner = {
      plan: async () => ({ plan: { steps: [{ worker: 'wrong', task: 'answer', sees: [] }] }, parsed: false }),
    };
    const strategies: Strategy[] = [
      {
        id: 'pipe',
        label: 'Pipeline',
        config: { kind: 'pipeline', planner: 'right', executor: 'wrong', verifier: 'wrong' },
      },
      { id: 'single', label: 'Wrong alone', config: { kind: 'single', worker: 'wrong' } },
      { id: 'conductor', label: 'Conductor', config: { kind: 'conductor' } },
    ];
    const results = await runBench({
      tasks: [task],
      strategies,
      pool: [worker('right'), worker('wrong')],
      transport: createOpenAITransport({ fetch: directFetch }),
      planner,
    }).finished;
    const pipe = results.find((r) => r.strategyId === 'pipe')!;
    expect(pipe.steps.map((s) => s.correct)).toEqual([true, false, false]);
    const causes = Object.fromEntries(
      attribute(results, [task]).strategies.map((s) => [
        s.strategyId,
        Object.entries(s.causes).find(([, n]) => n)?.[0],
      ]),
    );
    expect(causes).toEqual({ pipe: 'synthesis', single: 'workers', conductor: 'planner' });
  });
});
