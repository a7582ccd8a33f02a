import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeoversIn } from '../../../src/app/ledger-takeovers.ts';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ retryAfterMs: 1 });
});
afterAll(async () => {
  await provider.close();
});

function worker(id: string, label: string, model: string): WorkerSpec {
  return workerSpec({
    id,
    label,
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 4,
  });
}

describe('the ledger and failover', () => {
  it('records which worker sent each request, and marks the first request of the worker that took over', async () => {
    const ledger = await openLedger('ledger-takeovers');
    const egress = createEgress({
      vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
      ledger,
    });
    const handle = startRun({
      question: 'Q?',
      pool: [worker('a', 'Claude Sonnet', 'fault:503'), worker('b', 'GPT-5 mini', 'echo')],
      transport: chatTransports(egress),
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      failover: {},
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const entries = await ledger.list({ runId: result.runId });
    expect(entries.map((e) => e.worker)).toEqual([
      'Claude Sonnet',
      'Claude Sonnet',
      'Claude Sonnet',
      'GPT-5 mini',
    ]);
    expect(entries.map((e) => e.workerId)).toEqual(['a', 'a', 'a', 'b']);
    const notes = takeoversIn(entries);
    expect([...notes]).toEqual([[entries[3]?.id, 'Claude Sonnet']]);
  });

  it('reads the takeovers of each step apart, in the order the entries were written', () => {
    const notes = takeoversIn([
      { id: 4, runId: 'r', stepIndex: 1, workerId: 'a', worker: 'A' },
      { id: 3, runId: 'r', stepIndex: 0, workerId: 'c' },
      { id: 2, runId: 'r', stepIndex: 0, workerId: 'b', worker: 'B' },
      { id: 1, runId: 'r', stepIndex: 0, workerId: 'a', worker: 'A' },
      { id: 5, runId: 's', stepIndex: 0, workerId: 'b', worker: 'B' },
      { id: 6 },
    ]);
    expect([...notes].sort()).toEqual([
      [2, 'A'],
      [3, 'B'],
    ]);
  });
});
