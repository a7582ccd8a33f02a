import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { StepStatus } from '../../../src/records/run-types.ts';
import type { Plan } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Two local servers, as a user with two Custom endpoints has them.
let serverA: TestProvider;
let serverB: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });
const slow = { firstTokenMs: 150, perTokenMs: 5 };

beforeAll(async () => {
  [serverA, serverB] = await Promise.all([
    startProvider({ cors: 'open', models: [{ id: 'a', behaviour: { kind: 'echo' }, latency: slow }] }),
    startProvider({ cors: 'open', models: [{ id: 'b', behaviour: { kind: 'echo' }, latency: slow }] }),
  ]);
});
afterAll(async () => {
  await Promise.all([serverA.close(), serverB.close()]);
});

function custom(id: string, server: TestProvider, model: string, maxConcurrency: number): WorkerSpec {
  return workerSpec({
    id,
    label: `Custom ${id}`,
    baseURL: server.baseURL,
    model,
    maxConcurrency,
  });
}

const times = (s: StepStatus | undefined) => ({
  start: s?.timings.startedAt ?? NaN,
  end: s?.timings.endedAt ?? NaN,
});
const overlap = (x: StepStatus | undefined, y: StepStatus | undefined) =>
  times(x).start < times(y).end && times(y).start < times(x).end;

const parallel = (workers: string[]): Plan => ({
  steps: workers.map((worker, i) => ({ worker, task: `task ${i}`, sees: [] })),
});

describe('concurrency limits', () => {
  it('are per endpoint: two Custom servers at concurrency 1 each run a step at the same time', async () => {
    const pool = [custom('wa', serverA, 'a', 1), custom('wb', serverB, 'b', 1)];
    const result = await startRun({ question: 'Q?', pool, transport, plan: parallel(['wa', 'wb']) }).result;
    expect(result.status).toBe('done');
    expect(overlap(result.steps[0], result.steps[1])).toBe(true);
  });

  it('are shared by the workers of one endpoint, the strictest limit holding', async () => {
    const pool = [custom('wa', serverA, 'a', 1), custom('wa2', serverA, 'a', 4)];
    const waits: string[] = [];
    const result = await startRun({
      question: 'Q?',
      pool,
      transport,
      plan: parallel(['wa', 'wa2']),
      onEvent: (e) => {
        if (e.type === 'step-waiting' && e.wait?.kind === 'slot') waits.push(`${e.index} ${e.wait.endpoint}`);
      },
    }).result;
    expect(result.status).toBe('done');
    expect(overlap(result.steps[0], result.steps[1])).toBe(false);
    // The step that waited said what for.
    expect(waits).toEqual([`1 ${serverA.url}`]);
  });

  it.each([
    ['NaN', Number.NaN],
    ['2.5', 2.5],
    ['0', 0],
    ['-1', -1],
  ])('a provider concurrency of %s is a clear error before anything is sent', (_name, value) => {
    serverA.clearRequests();
    const pool = [custom('wa', serverA, 'a', 2)];
    expect(() =>
      startRun({
        question: 'Q?',
        pool,
        transport,
        providerConcurrency: { custom: value },
        plan: parallel(Array.from({ length: 50 }, () => 'wa')),
        maxSteps: 50,
      }),
    ).toThrow(
      new RangeError(`The concurrency for "custom" must be a whole number of at least 1; it is ${value}.`),
    );
    expect(serverA.requests).toHaveLength(0);
  });

  it("a worker's non-integer maxConcurrency is a clear error that names the worker", () => {
    const pool = [custom('wa', serverA, 'a', 2.5)];
    expect(() => startRun({ question: 'Q?', pool, transport, plan: parallel(['wa']) })).toThrow(
      /The concurrency of worker "Custom wa" must be a whole number of at least 1; it is 2\.5\./,
    );
  });
});
