import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { BenchItemResult } from '../../../src/evaluation/bench-item.ts';
import { BenchStore } from '../../../src/evaluation/bench-store.ts';
import type { Strategy } from '../../../src/evaluation/strategies.ts';
import { summarize } from '../../../src/evaluation/summary.ts';
import { exportTrajectories, rewardOf } from '../../../src/evaluation/trajectories.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';

function item(over: Partial<BenchItemResult>): BenchItemResult {
  return {
    taskId: 't',
    strategyId: 's',
    status: 'done',
    correct: true,
    parsed: true,
    answer: 'Answer: 1',
    promptTokens: 10,
    completionTokens: 5,
    tokensByWorker: { w1: 15 },
    cost: 0.001,
    latencyMs: 100,
    plan: { steps: [{ worker: 'w1', task: 'do it', sees: [] }] },
    steps: [{ worker: 'w1', task: 'do it', sees: [], state: 'done', answer: 'Answer: 1' }],
    finishedAt: 1,
    ...over,
  };
}

describe('summaries', () => {
  it('aggregates accuracy, tokens, cost, latency quantiles and tokens per worker per strategy', () => {
    const rows = summarize([
      item({ taskId: 'a', latencyMs: 100 }),
      item({ taskId: 'b', correct: false, latencyMs: 300, tokensByWorker: { w1: 5, w2: 10 } }),
      item({ taskId: 'c', status: 'failed', correct: false, latencyMs: 200, cost: 0 }),
      item({ strategyId: 'other', taskId: 'a', latencyMs: 50 }),
    ]);
    expect(rows.map((r) => r.strategyId)).toEqual(['s', 'other']);
    const s = rows[0]!;
    expect(s).toMatchObject({ items: 3, correct: 1, failures: 1, promptTokens: 30, completionTokens: 15 });
    expect(s.accuracy).toBeCloseTo(1 / 3);
    expect(s.tokensPerItem).toBe(15);
    expect(s.cost).toBeCloseTo(0.002);
    expect(s.latencyMedianMs).toBe(200);
    expect(s.latencyP90Ms).toBeCloseTo(280);
    expect(s.tokensByWorker).toEqual({ w1: 35, w2: 10 });
  });
});

describe('trajectories', () => {
  const pool: WorkerSpec[] = [
    {
      id: 'w1',
      label: 'Worker one',
      strengths: 'maths',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'm1',
      maxConcurrency: 1,
      enabled: true,
    },
  ];
  const strategies: Strategy[] = [{ id: 's', label: 'Conductor', config: { kind: 'conductor' } }];
  const tasks = [{ id: 't', kind: 'exact' as const, question: 'Q?', answer: '1' }];

  it("uses the paper's reward: 0 unparsed, 0.5 valid but wrong, 1 correct", () => {
    expect(rewardOf({ parsed: false, correct: true })).toBe(0);
    expect(rewardOf({ parsed: true, correct: false })).toBe(0.5);
    expect(rewardOf({ parsed: true, correct: true })).toBe(1);
  });

  it('exports one JSON line per result with question, pool, plan, steps, answer, score, tokens and cost', () => {
    const text = exportTrajectories(
      [item({}), item({ correct: false, parsed: false }), item({ taskId: 'gone' })],
      tasks,
      strategies,
      pool,
    );
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({
      question: 'Q?',
      pool: [{ id: 'w1', label: 'Worker one', strengths: 'maths', model: 'm1' }],
      mode: 'conductor',
      plan: { steps: [{ worker: 'w1', task: 'do it', sees: [] }] },
      steps: [{ worker: 'w1', task: 'do it', sees: [], answer: 'Answer: 1' }],
      finalAnswer: 'Answer: 1',
      correct: true,
      reward: 1,
      tokens: { prompt: 10, completion: 5 },
      cost: 0.001,
    });
    expect(lines[1].reward).toBe(0);
    expect(text).not.toContain('127.0.0.1');
  });

  it('exports an answer that could not be scored with no verdict and why, not as a wrong one', () => {
    const why = "Python's runtime could not be downloaded";
    const [line, unparsed] = exportTrajectories(
      [
        item({ status: 'unscored', correct: false, notScored: why }),
        item({ status: 'unscored', correct: false, parsed: false, notScored: why }),
      ],
      tasks,
      strategies,
      pool,
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(line).toMatchObject({ correct: null, reward: null, notScored: why });
    // An invalid plan earns the paper's 0 whatever its answer.
    expect(unparsed).toMatchObject({ correct: null, reward: 0 });
  });
});

describe('the bench store', () => {
  it('keeps runs and their results for comparison, and deletes them together', async () => {
    const store = await BenchStore.open(`bench-test-${Math.random()}`);
    const base = {
      tasks: [],
      strategies: [],
      pool: [],
      concurrency: 2,
      state: 'done' as const,
      createdAt: 1,
      updatedAt: 1,
    };
    await store.putRun({ ...base, id: 'r1', name: 'first' });
    await store.putResult('r1', item({ taskId: 'a' }));
    await store.putResult('r1', item({ taskId: 'a' })); // rewritten, not duplicated
    await store.putResult('r1', item({ taskId: 'b', correct: false }));
    await new Promise((r) => setTimeout(r, 5));
    await store.putRun({ ...base, id: 'r2', name: 'second' });
    await store.putResult('r2', item({ taskId: 'a' }));
    expect((await store.listRuns()).map((r) => r.name)).toEqual(['second', 'first']);
    const first = await store.getRun('r1');
    expect(first?.results.map((r) => r.taskId)).toEqual(['a', 'b']);
    expect(first?.results[0]).not.toHaveProperty('benchId');
    // A result stored before unscored items had a status of their own: an answer stored as failed.
    await store.putResult(
      'r1',
      item({ taskId: 'old', status: 'failed', correct: false, error: 'Python scoring is not available yet' }),
    );
    expect((await store.getRun('r1'))?.results.find((r) => r.taskId === 'old')).toMatchObject({
      status: 'unscored',
      notScored: 'Python scoring is not available yet',
    });
    await store.deleteRun('r1');
    expect(await store.getRun('r1')).toBeUndefined();
    expect((await store.getRun('r2'))?.results).toHaveLength(1);
    store.close();
  });
});
