import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../../../src/evaluation/bench-runner.ts';
import type { Strategy } from '../../../src/evaluation/strategies.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// The spend cap reads what items cost: an item whose steps failed or were cancelled after streaming
// still cost money, and must count, or the bench runs past its cap.

const LONG = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
const TASKS: Task[] = [1, 2, 3, 4].map((n) => ({
  id: `t${n}`,
  kind: 'exact',
  question: `Q${n}?`,
  answer: 'x',
}));
const transport = createOpenAITransport({ fetch: directFetch });
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      // Half the answer, then the connection drops: no usage ever arrives, on every attempt.
      { id: 'cutter', behaviour: { kind: 'fixed', text: LONG }, fault: { kind: 'cut' } },
      {
        id: 'slowlong',
        behaviour: { kind: 'fixed', text: LONG },
        latency: { firstTokenMs: 0, perTokenMs: 15 },
      },
    ],
  });
});
afterAll(() => provider.close());

function worker(id: string, model: string): WorkerSpec {
  return workerSpec({
    id,
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 4,
    price: { inputPerM: 1000, outputPerM: 1000 },
  });
}

const single = (w: string): Strategy => ({
  id: `single-${w}`,
  label: w,
  config: { kind: 'single', worker: w },
});

describe('the bench spend cap', () => {
  it('counts what failed attempts streamed, so it stops at the cap instead of running every item', async () => {
    // Before any result the estimate is about $0.41 an item; each item really streams about 3 × 200
    // words over its three attempts, about $1.6 at these prices.
    const cap = 1;
    const bench = runBench({
      tasks: TASKS,
      strategies: [single('cutter')],
      pool: [worker('cutter', 'cutter')],
      transport,
      concurrency: 1,
      spendCapUsd: cap,
      executor: { retry: { baseDelayMs: 1, maxDelayMs: 2 } },
    });
    const results = await bench.finished;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'failed' });
    expect(results[0]!.cost).toBeGreaterThan(cap / 2);
    expect(results[0]!.completionTokens).toBeGreaterThan(0);
    expect(bench.progress()).toMatchObject({ state: 'capped', spent: results[0]!.cost });
  });

  it('counts the spend of items cancelled mid-stream', async () => {
    provider.clearRequests();
    const bench = runBench({
      tasks: TASKS.slice(0, 2),
      strategies: [single('slow')],
      pool: [worker('slow', 'slowlong')],
      transport,
      concurrency: 2,
    });
    // Cancel once both items' requests are out (the provider has them): they are billed from then on.
    while (provider.requests.filter((r) => r.method === 'POST').length < 2) {
      await new Promise((r) => setTimeout(r, 20));
    }
    bench.cancel();
    expect(await bench.finished).toEqual([]);
    expect(bench.progress().state).toBe('cancelled');
    expect(bench.progress().spent).toBeGreaterThan(0);
  });
});
