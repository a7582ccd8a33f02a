import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costText, estimateCostText, estimateText } from '../../../src/app/price-text.ts';
import { estimatePlan } from '../../../src/executor/estimate.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { summarize } from '../../../src/records/run-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { goodRun } from '../../fixtures/run-records.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A worker with no price costs an unknown amount: every place a cost is shown says so instead of $0, and
// the spend limit, which can only count what it can price, says it does not count it.

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ cors: 'open' });
});
afterAll(() => provider.close());

function worker(id: string, price?: WorkerSpec['price']): WorkerSpec {
  return workerSpec({
    id,
    label: id === 'free' ? 'My server' : 'Priced',
    baseURL: provider.baseURL,
    model: 'echo',
    ...(price ? { price } : {}),
  });
}

describe('an unknown price', () => {
  it('reads as unknown, or as a known part plus unknown, never as $0', () => {
    expect(costText(0, 1)).toBe('unknown');
    expect(costText(0.012, 2)).toBe('$0.012 + unknown');
    expect(costText(0.012)).toBe('$0.012');
    expect(costText(0)).toBe('$0');
  });

  it('in a run: the step says the spend limit does not count it, and the totals know it is unknown', async () => {
    const result = await startRun({
      question: 'Q?',
      pool: [worker('free'), worker('paid', { inputPerM: 1, outputPerM: 1 })],
      transport: createOpenAITransport({ fetch: directFetch }),
      spendLimitUsd: 0.5,
      plan: {
        steps: [
          { worker: 'free', task: 'one', sees: [] },
          { worker: 'paid', task: 'two', sees: [0] },
        ],
      },
    }).result;
    expect(result.status).toBe('done');
    expect(result.steps[0]?.notice).toBe(
      'My server has no price, so its requests are not counted against your $0.50 spend limit per run (their cost shows as unknown).',
    );
    expect(result.steps[1]?.notice).toBeUndefined();
    expect(result.totals.unpriced).toBe(1);
    expect(result.totals.cost).toBeGreaterThan(0);
    expect(costText(result.totals.cost, result.totals.unpriced)).toMatch(/^\$\S+ \+ unknown$/);
    // History's summary keeps it.
    const summary = summarize(goodRun(result.runId, 2, { status: result.status, totals: result.totals }));
    expect(summary).toMatchObject({ unpriced: true });
  });

  it('in an estimate: a plan of unpriced steps has an unknown price, and the limit is said not to count it', () => {
    const estimate = estimatePlan({
      question: 'Q?',
      steps: [{ worker: 'free', task: 'one', sees: [] }],
      pool: [worker('free')],
    });
    expect(estimateCostText(estimate)).toBe('price unknown');
    expect(estimateText(estimate, { free: 'My server' })).toMatch(
      /^price unknown for 1 step .*My server has no price: not counted, nor by the spend limit/,
    );
  });
});
