import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLedgerEstimates } from '../../../src/app/runs/ledger-estimates.ts';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A provider that sends no usage leaves egress nothing to count: the ledger shows the run's own estimate
// of each request, marked as one, over real HTTP.

let silent: TestProvider;
let counting: TestProvider;
const ANSWER = Array.from({ length: 60 }, (_, i) => `token${i}`).join(' ');

beforeAll(async () => {
  silent = await startProvider({ cors: 'open', usage: 'never' });
  counting = await startProvider({ cors: 'open' });
  for (const p of [silent, counting]) {
    p.setModel({ id: 'long', behaviour: { kind: 'fixed', text: ANSWER } });
    p.setModel({
      id: 'cut-once',
      behaviour: { kind: 'fixed', text: ANSWER },
      fault: { kind: 'cut', times: 1 },
    });
  }
});
afterAll(async () => {
  await silent.close();
  await counting.close();
});

function worker(provider: TestProvider, model: string): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Writer',
    baseURL: provider.baseURL,
    model,
    price: { inputPerM: 1000, outputPerM: 2000 },
  });
}

async function run(name: string, spec: WorkerSpec) {
  const ledger = await openLedger(name);
  const egress = createEgress({
    vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
    ledger,
  });
  const runId = `run-${name}`;
  const handle = startRun({
    runId,
    question: 'Q?',
    pool: [spec],
    transport: chatTransports(egress),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
    onEvent: withLedgerEstimates(
      async () => ledger,
      runId,
      () => {},
    ),
  });
  const result = await handle.result;
  return { ledger, result, runId };
}

describe('ledger estimates', () => {
  it('writes the step’s estimated tokens into the ledger entry of a request that had no usage', async () => {
    const { ledger, result, runId } = await run('ledger-estimate-1', worker(silent, 'long'));
    expect(result.status).toBe('done');
    const [request] = result.steps[0]!.requests!;
    expect(request).toMatchObject({ estimated: true, estimator: 'o200k' });
    expect(request!.completionTokens).toBeGreaterThan(0);
    await expect
      .poll(async () => (await ledger.list({ runId })).filter((e) => e.purpose === 'chat'))
      .toMatchObject([
        {
          promptTokens: request!.promptTokens,
          completionTokens: request!.completionTokens,
          tokensEstimatedBy: 'o200k',
        },
      ]);
    ledger.close();
  });

  it('gives each attempt of a retried step its own estimate, in order', async () => {
    const { ledger, result, runId } = await run('ledger-estimate-2', worker(silent, 'cut-once'));
    expect(result.status).toBe('done');
    const requests = result.steps[0]!.requests!;
    expect(requests.map((r) => r.outcome)).toEqual(['failed', 'answered']);
    // The cut attempt streamed about half the answer: fewer tokens than the whole one.
    expect(requests[0]!.completionTokens).toBeLessThan(requests[1]!.completionTokens);
    await expect
      .poll(async () =>
        (await ledger.list({ runId })).map((e) => [e.promptTokens, e.completionTokens, e.tokensEstimatedBy]),
      )
      .toEqual(requests.map((r) => [r.promptTokens, r.completionTokens, 'o200k']));
    ledger.close();
  });

  it('leaves the provider’s own counts alone', async () => {
    const { ledger, result, runId } = await run('ledger-estimate-3', worker(counting, 'long'));
    expect(result.steps[0]!.requests![0]!.estimated).toBeUndefined();
    const [entry] = await ledger.list({ runId });
    expect(entry).toMatchObject({ completionTokens: result.steps[0]!.requests![0]!.completionTokens });
    expect(entry!.tokensEstimatedBy).toBeUndefined();
    ledger.close();
  });
});
