import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { describeWait } from '../../../src/executor/step-status.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { StepWait } from '../../../src/records/run-types.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });

beforeAll(async () => {
  provider = await startProvider({ cors: 'open' });
});
afterAll(() => provider.close());

function worker(model: string): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Stalling server',
    baseURL: provider.baseURL,
    model,
  });
}

describe('what a step waits for', () => {
  it('says why a stalled step retries, which attempt of how many, and how long is left', async () => {
    // Stalls (headers, then silence) on the first attempt, answers on the second.
    provider.setModel({ id: 'stall-once', behaviour: { kind: 'echo' }, fault: { kind: 'stall', times: 1 } });
    const waits: { wait: StepWait | undefined; at: number }[] = [];
    const events: ExecutorEvent[] = [];
    const result = await startRun({
      question: 'Q?',
      pool: [worker('stall-once')],
      transport,
      // Long enough that the answering attempt starts within it on a loaded machine.
      firstTokenTimeoutMs: 1500,
      retry: { baseDelayMs: 5, maxDelayMs: 10 },
      plan: { steps: [{ worker: 'w1', task: 'answer', sees: [] }] },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'step-waiting') waits.push({ wait: e.wait, at: Date.now() });
      },
    }).result;
    expect(result.status).toBe('done');
    const kinds = waits.map((w) => w.wait?.kind ?? 'none');
    expect(kinds).toEqual(['first-token', 'retry', 'first-token', 'none']);
    const first = waits[0]!.wait as Extract<StepWait, { kind: 'first-token' }>;
    expect(first).toMatchObject({ attempt: 1, maxAttempts: 3 });
    expect(first.deadline - first.since).toBe(1500);
    const retry = waits[1]!.wait as Extract<StepWait, { kind: 'retry' }>;
    expect(retry).toMatchObject({ attempt: 1, maxAttempts: 3, reason: 'No answer began within 1.5 s.' });
    expect(describeWait({ state: 'running', wait: retry }, retry.until - 2500)).toBe(
      'No answer began within 1.5 s; retrying in 3 s (attempt 2 of 3).',
    );
    // The stored (and final) status no longer waits on anything.
    expect(result.steps[0]?.wait).toBeUndefined();
  });

  it('words each wait for the step card', () => {
    const since = 1_000_000;
    expect(
      describeWait(
        {
          state: 'running',
          wait: { kind: 'first-token', since, deadline: since + 60_000, attempt: 2, maxAttempts: 3 },
        },
        since + 42_500,
      ),
    ).toBe('No answer yet after 42 s; gives up in 18 s (attempt 2 of 3).');
    expect(
      describeWait(
        { state: 'queued', wait: { kind: 'slot', endpoint: 'http://127.0.0.1:8787', limit: 1 } },
        since,
      ),
    ).toBe('Waiting for a free request slot at http://127.0.0.1:8787 (1 at a time).');
    // A step that has ended waits on nothing, whatever was left behind.
    expect(
      describeWait({ state: 'done', wait: { kind: 'slot', endpoint: 'http://x', limit: 1 } }, since),
    ).toBeUndefined();
  });

  it('announces the run step cap, self-checks included, when the run starts', () => {
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'Q?',
      pool: [worker('echo')],
      transport,
      maxSteps: 5,
      maxDepth: 2,
      plan: { steps: [{ worker: 'w1', task: 'answer', sees: [] }] },
      onEvent: (e) => events.push(e),
    });
    expect(events[0]).toMatchObject({
      type: 'run-started',
      limits: { maxSteps: 5, maxDepth: 2, maxTotalSteps: 15 },
      pool: [{ id: 'w1', label: 'Stalling server' }],
    });
    return handle.result;
  });
});
