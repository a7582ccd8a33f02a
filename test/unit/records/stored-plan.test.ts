import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeRun, startRun } from '../../../src/executor/executor.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider();
  provider.setModel({
    id: 'late',
    behaviour: { kind: 'echo' },
    latency: { firstTokenMs: 1_500, perTokenMs: 0 },
  });
});
afterAll(async () => {
  await provider.close();
});

describe('a run cut off while its steps run', () => {
  it('has its whole plan stored, so a resume (and an export of it) keeps the plan it ran', async () => {
    const store = await openRunStore('stored-plan-test');
    const worker: WorkerSpec = workerSpec({
      id: 'w1',
      label: 'Late',
      baseURL: provider.baseURL,
      model: 'late',
      maxConcurrency: 1,
    });
    const plan = { steps: [{ worker: 'w1', task: 'Answer slowly.', sees: [] as number[] }] };
    const run = startRun({
      runId: 'cut',
      question: 'Q?',
      plan,
      pool: [worker],
      transport: createOpenAITransport({ fetch: directFetch }),
      store,
    });
    // The step's request is out and waiting: the page is closed now (as a reload does).
    await new Promise((resolve) => setTimeout(resolve, 300));
    run.abandon();
    const stored = await store.getRun('cut');
    expect(stored?.run.status).toBe('running');
    expect(stored?.run.plan.steps).toEqual(plan.steps);
    const resumed = await resumeRun({
      store,
      runId: 'cut',
      transport: createOpenAITransport({ fetch: directFetch }),
    });
    await resumed.result;
    expect((await store.getRun('cut'))?.run).toMatchObject({ status: 'done', plan: { steps: plan.steps } });
    store.close();
  });
});
