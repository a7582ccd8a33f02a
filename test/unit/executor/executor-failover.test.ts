import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, resumeRun, startRun } from '../../../src/executor/executor.ts';
import type { FailoverOptions } from '../../../src/executor/failover.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { type RecordedRequest, startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });
/** Fast retries; the provider's Retry-After on 503 is short too, so three attempts take milliseconds. */
const fastRetry = { baseDelayMs: 1, maxDelayMs: 5 };
const failover: FailoverOptions = {};

beforeAll(async () => {
  provider = await startProvider({ retryAfterMs: 1 });
});
afterAll(async () => {
  await provider.close();
});

function worker(id: string, model: string, extra: Partial<WorkerSpec> = {}): WorkerSpec {
  return workerSpec({
    id,
    label: `Worker ${id.toUpperCase()}`,
    providerId: 'test',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 8,
    ...extra,
  });
}

function run(options: Omit<RunOptions, 'transport' | 'question'>) {
  const events: ExecutorEvent[] = [];
  const handle = startRun({
    question: 'Q?',
    transport,
    retry: fastRetry,
    ...options,
    onEvent: (event) => events.push(event),
  });
  return { handle, events };
}

function requestsFor(model: string): RecordedRequest[] {
  return provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === model,
  );
}

/** Models are per test, so their request counts are too. */
let serial = 0;
function unique(prefix: string): string {
  return `${prefix}${serial++}`;
}

describe('failover', () => {
  it('re-runs a step whose worker answers 503 every time on another worker, whose answer later steps read', async () => {
    const down = 'fault:503';
    const up = unique('fixed:substitute answer ');
    const pool = [worker('a', down), worker('b', up), worker('c', 'echo')];
    const before = requestsFor(down).length;
    const { handle, events } = run({
      pool,
      failover,
      plan: {
        steps: [
          { worker: 'a', task: 'first', sees: [] },
          { worker: 'c', task: 'second', sees: [0] },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(requestsFor(down).length - before).toBe(3); // its retries first
    const [first, second] = result.steps;
    expect(first?.state).toBe('done');
    expect(first?.worker).toBe('b');
    expect(first?.text).toBe(up.slice('fixed:'.length));
    expect(first?.takeovers).toEqual([
      { from: 'a', to: 'b', reason: expect.stringContaining('503'), at: expect.any(Number) },
    ]);
    expect(first?.takeovers?.[0]?.reason).toContain('gave up after 3 attempts');
    // Every request is counted: A's three failed ones and B's answer.
    expect(first?.requests?.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed', 'answered']);
    const takeover = events.find((e) => e.type === 'step-takeover');
    expect(takeover).toMatchObject({ index: 0, takeover: { from: 'a', to: 'b' }, status: { worker: 'b' } });
    // The next step's context holds the substitute's answer.
    const secondRequest = requestsFor('echo').at(-1)?.body as { messages: { content: string }[] };
    expect(secondRequest.messages.map((m) => m.content)).toContain(up.slice('fixed:'.length));
    expect(second?.state).toBe('done');
    expect(result.answer).toBe('second');
  });

  it('without failover, the step fails as it always did and no other worker is asked', async () => {
    const up = unique('fixed:never ');
    const { handle } = run({
      pool: [worker('a', 'fault:503'), worker('b', up)],
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.error).toMatch(/^Provider error \(503\).*\(gave up after 3 attempts\)$/);
    expect(result.steps[0]?.takeovers).toBeUndefined();
    expect(requestsFor(up)).toHaveLength(0);
  });

  it('does not fail over a pinned step, and says why', async () => {
    const up = unique('fixed:never ');
    const { handle } = run({
      pool: [worker('a', 'fault:503'), worker('b', up)],
      failover,
      plan: { steps: [{ worker: 'a', task: 'first', sees: [], pin: true }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.pin).toBe(true);
    expect(result.steps[0]?.error).toContain('The step is pinned to Worker A, so no other worker took over.');
    expect(requestsFor(up)).toHaveLength(0);
  });

  it('fails with a message that says so when no other worker has a key', async () => {
    const up = unique('fixed:never ');
    const { handle } = run({
      pool: [worker('a', 'fault:503'), worker('b', up), worker('local', 'echo')],
      failover: { hasKey: async (w) => w.id !== 'b' },
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.error).toMatch(
      /\(gave up after 3 attempts\)\. No other worker could take over: Worker B has no key saved\.$/,
    );
    expect(requestsFor(up)).toHaveLength(0);
  });

  it('does not fail over a request the provider rejects as bad (400)', async () => {
    const up = unique('fixed:never ');
    // An empty model name is a 400 "you must provide a model parameter", as OpenAI answers it.
    const { handle } = run({
      pool: [worker('a', ''), worker('b', up)],
      failover,
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.error).toContain('400');
    expect(result.steps[0]?.takeovers).toBeUndefined();
    expect(requestsFor(up)).toHaveLength(0);
  });

  it('goes on to a third worker when the substitute fails too, and never back to one that failed', async () => {
    const up = unique('fixed:third ');
    const { handle } = run({
      pool: [worker('a', 'fault:503'), worker('b', 'fault:500'), worker('c', up)],
      failover,
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(result.steps[0]?.takeovers?.map((t) => [t.from, t.to])).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(result.answer).toBe(up.slice('fixed:'.length));
  });

  it('sends a later step of a worker that already failed in the run straight to the substitute', async () => {
    const downModel = 'fault:503';
    const up = unique('fixed:steady ');
    const before = requestsFor(downModel).length;
    const { handle } = run({
      pool: [worker('a', downModel), worker('b', up)],
      failover,
      plan: {
        steps: [
          { worker: 'a', task: 'first', sees: [] },
          { worker: 'a', task: 'second', sees: [0] },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(requestsFor(downModel).length - before).toBe(3); // only the first step's attempts
    const later = result.steps[1];
    expect(later?.worker).toBe('b');
    expect(later?.takeovers).toEqual([
      {
        from: 'a',
        to: 'b',
        reason: expect.stringMatching(/^earlier in this run: Provider error \(503\)/),
        at: expect.any(Number),
      },
    ]);
    expect(later?.requests?.map((r) => r.outcome)).toEqual(['answered']);
  });

  it('lets the spend hook refuse a substitute, with its reason', async () => {
    const up = unique('fixed:never ');
    const { handle } = run({
      pool: [worker('a', 'fault:503'), worker('b', up)],
      failover: { allow: () => 'the run would pass its spend limit' },
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.steps[0]?.error).toContain(
      'No other worker could take over: Worker B: the run would pass its spend limit.',
    );
    expect(requestsFor(up)).toHaveLength(0);
  });

  it('stores the takeover and the pin, and a resume keeps them and the plan its own worker', async () => {
    const store = await openRunStore('runs-failover-resume');
    const up = unique('fixed:stored ');
    const pool = [worker('a', 'fault:503'), worker('b', up)];
    const { handle } = run({
      pool,
      failover,
      store,
      plan: {
        steps: [
          { worker: 'a', task: 'first', sees: [] },
          { worker: 'b', task: 'second', sees: [0], pin: true },
        ],
      },
    });
    const result = await handle.result;
    const stored = await store.getRun(result.runId);
    expect(stored?.steps[0]?.takeovers?.map((t) => [t.from, t.to])).toEqual([['a', 'b']]);
    expect(stored?.steps[0]?.worker).toBe('b');
    expect(stored?.steps[1]?.pin).toBe(true);
    expect(stored?.run.plan.steps[1]?.pin).toBe(true);
    const resumed = await resumeRun({ store, runId: result.runId, transport, retry: fastRetry });
    const again = await resumed.result;
    expect(again.steps[0]?.takeovers).toHaveLength(1);
    expect(again.steps[1]?.pin).toBe(true);
  });

  it('hands a stalled step to another worker after one first-token wait, not three', async () => {
    const up = unique('fixed:after the stall ');
    const before = requestsFor('fault:stall').length;
    const { handle } = run({
      pool: [worker('a', 'fault:stall'), worker('b', up)],
      failover,
      firstTokenTimeoutMs: 300,
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(requestsFor('fault:stall').length - before).toBe(1);
    const step = result.steps[0];
    expect(step?.worker).toBe('b');
    expect(step?.takeovers?.map((t) => [t.from, t.to, t.reason])).toEqual([
      ['a', 'b', 'No answer began within 0.3 s.'],
    ]);
    expect(step?.requests?.map((r) => r.outcome)).toEqual(['failed', 'answered']);
  });

  it('still retries a stall on its worker when no other worker can take the step', async () => {
    const before = requestsFor('fault:stall').length;
    const { handle } = run({
      pool: [worker('a', 'fault:stall'), worker('b', 'echo', { enabled: false })],
      failover,
      firstTokenTimeoutMs: 200,
      plan: { steps: [{ worker: 'a', task: 'first', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(requestsFor('fault:stall').length - before).toBe(3);
    expect(result.steps[0]?.error).toContain('No answer began within 0.2 s. (gave up after 3 attempts)');
  });
});
