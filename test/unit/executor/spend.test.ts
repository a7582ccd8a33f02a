import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { type LedgerEntry, openLedger } from '../../../src/egress/ledger.ts';
import { resumeRun, startRun } from '../../../src/executor/executor.ts';
import { resetForRerun } from '../../../src/executor/resume.ts';
import type { ExecutorEvent, RunResult } from '../../../src/executor/types.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// Every request a run sends is paid for, whether its answer stayed or not: these check the run's totals
// against the egress ledger's record of what left, over real HTTP.

let provider: TestProvider;
const fastRetry = { baseDelayMs: 5, maxDelayMs: 20 };
const LONG = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');

beforeAll(async () => {
  provider = await startProvider({ cors: 'open' });
});
afterAll(() => provider.close());

let nextId = 0;
function model(options: Parameters<TestProvider['setModel']>[0] extends infer M ? Partial<M> : never = {}) {
  const id = `spend${nextId++}`;
  provider.setModel({ id, behaviour: { kind: 'fixed', text: LONG }, ...options });
  return id;
}

function worker(modelId: string): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Writer',
    baseURL: provider.baseURL,
    model: modelId,
    maxConcurrency: 4,
    price: { inputPerM: 1000, outputPerM: 2000 },
  });
}

async function through(ledgerName: string) {
  const ledger = await openLedger(ledgerName);
  const egress = createEgress({
    vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
    ledger,
  });
  return { ledger, transport: chatTransports(egress) };
}

/**
 * What the ledger says the run used: the provider's count where it sent one, none for an error response,
 * else the run's own estimate of that request (matched by step and order), marked as estimated.
 */
function expectTotalsMatchLedger(result: RunResult, entries: LedgerEntry[]) {
  const sent = entries.filter((e) => e.sent);
  expect(result.totals.requests).toBe(sent.length);
  let prompt = 0;
  let completion = 0;
  for (const step of result.steps) {
    const mine = sent.filter((e) => e.stepIndex === step.index);
    const requests = step.requests ?? [];
    expect(requests).toHaveLength(mine.length);
    mine.forEach((entry, i) => {
      const request = requests[i]!;
      if (entry.completionTokens !== undefined) {
        expect(request).toMatchObject({
          promptTokens: entry.promptTokens,
          completionTokens: entry.completionTokens,
        });
        expect(request.estimated).toBeUndefined();
      } else if (entry.status !== undefined && entry.status >= 400) {
        // An error response: nothing was generated, nothing is billed.
        expect(request).toMatchObject({ promptTokens: 0, completionTokens: 0 });
      } else {
        expect(request.estimated).toBe(true);
      }
      prompt += request.promptTokens;
      completion += request.completionTokens;
    });
  }
  expect(result.totals.promptTokens).toBe(prompt);
  expect(result.totals.completionTokens).toBe(completion);
}

describe('spend over every request', () => {
  it('counts a failed attempt that streamed half an answer (estimated) as well as the retry that answered', async () => {
    const { ledger, transport } = await through('ledger-spend-retry');
    const m = model({ fault: { kind: 'cut', times: 1 } });
    const handle = startRun({
      question: 'Q?',
      pool: [worker(m)],
      transport,
      retry: fastRetry,
      plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const [step] = result.steps;
    expect(step?.requests?.map((r) => r.outcome)).toEqual(['failed', 'answered']);
    const [cut, answered] = step!.requests!;
    // The cut stream carried about half the answer and no usage: estimated from its characters.
    expect(cut!.estimated).toBe(true);
    expect(cut!.completionTokens).toBeGreaterThan(0);
    expect(cut!.cost).toBeGreaterThan(0);
    expect(result.totals.completionTokens).toBe(answered!.completionTokens + cut!.completionTokens);
    expect(result.totals.cost).toBeCloseTo((answered!.cost ?? 0) + (cut!.cost ?? 0), 12);
    expect(result.totals.estimated).toBe(true);
    expectTotalsMatchLedger(result, await ledger.list({ runId: handle.runId }));
    ledger.close();
  });

  it('counts what a cancelled step streamed (estimated tokens and cost), never $0', async () => {
    const { ledger, transport } = await through('ledger-spend-cancel');
    const m = model({ latency: { firstTokenMs: 0, perTokenMs: 20 } });
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'Q?',
      pool: [worker(m)],
      transport,
      retry: fastRetry,
      plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
      onEvent: (event) => {
        events.push(event);
        // Cancel once a few tokens have streamed.
        if (event.type === 'step-delta' && event.answer.length > 40) handle.cancelStep(0);
      },
    });
    const result = await handle.result;
    expect(result.steps[0]?.state).toBe('cancelled');
    const [request] = result.steps[0]!.requests!;
    expect(request).toMatchObject({ outcome: 'cancelled', estimated: true });
    expect(result.totals.completionTokens).toBeGreaterThan(0);
    expect(result.totals.promptTokens).toBeGreaterThan(0);
    expect(result.totals.cost).toBeGreaterThan(0);
    expectTotalsMatchLedger(result, await ledger.list({ runId: handle.runId }));
    ledger.close();
  });

  it('keeps the spend of a step that is rerun: totals count both requests, as the ledger does', async () => {
    const { ledger, transport } = await through('ledger-spend-rerun');
    const store = await openRunStore('runs-spend-rerun');
    const m = model();
    const pool = [worker(m)];
    const first = startRun({
      question: 'Q?',
      pool,
      transport,
      store,
      plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
    });
    const done = await first.result;
    expect(done.totals.requests).toBe(1);
    // "Rerun step" as the page does it: the step is reset in the store, then the run resumed.
    const stored = await store.getRun(first.runId);
    await resetForRerun(store, stored!, 0);
    const again = await resumeRun({ store, runId: first.runId, transport });
    const result = await again.result;
    expect(result.status).toBe('done');
    expect(result.totals.requests).toBe(2);
    expect(result.totals.completionTokens).toBe(2 * done.totals.completionTokens);
    expect(result.totals.cost).toBeCloseTo(2 * done.totals.cost, 12);
    expect((await store.getRun(first.runId))?.run.totals).toEqual(result.totals);
    expectTotalsMatchLedger(result, await ledger.list({ runId: first.runId }));
    store.close();
    ledger.close();
  });

  it('counts an error response as a request that used no tokens', async () => {
    const { ledger, transport } = await through('ledger-spend-500');
    const m = model({ fault: { kind: '500', times: 1 } });
    const handle = startRun({
      question: 'Q?',
      pool: [worker(m)],
      transport,
      retry: fastRetry,
      plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.steps[0]?.requests?.[0]).toMatchObject({
      outcome: 'failed',
      promptTokens: 0,
      completionTokens: 0,
    });
    expect(result.totals.estimated).toBeUndefined();
    expectTotalsMatchLedger(result, await ledger.list({ runId: handle.runId }));
    ledger.close();
  });

  it('counts a request stopped by the step timeout mid-stream as failed, with what it streamed', async () => {
    const { ledger, transport } = await through('ledger-spend-timeout');
    const m = model({ latency: { firstTokenMs: 0, perTokenMs: 30 } });
    const handle = startRun({
      question: 'Q?',
      pool: [worker(m)],
      transport,
      stepTimeoutMs: 1000,
      plan: { steps: [{ worker: 'w1', task: 'write', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.steps[0]?.state).toBe('failed');
    expect(result.steps[0]?.requests).toMatchObject([{ outcome: 'failed', estimated: true }]);
    expect(result.totals.completionTokens).toBeGreaterThan(0);
    expectTotalsMatchLedger(result, await ledger.list({ runId: handle.runId }));
    ledger.close();
  });
});

describe('prices', () => {
  it("prices DeepSeek's cache hits at its cache rate, not the full input rate", async () => {
    const deepseek = await startProvider({ cors: 'open', dialect: 'deepseek' });
    try {
      deepseek.setModel({ id: 'deepseek-chat', behaviour: { kind: 'fixed', text: 'cached answer' } });
      const price = presetById('deepseek')!.models.find((m) => m.id === 'deepseek-chat')!.price;
      const question = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
      const result = await startRun({
        question,
        transport: createOpenAITransport({ fetch: directFetch }),
        pool: [{ ...worker('deepseek-chat'), providerId: 'deepseek', baseURL: deepseek.baseURL, price }],
        plan: { steps: [{ worker: 'w1', task: 'Answer.', sees: [] }] },
      }).result;
      const step = result.steps[0]!;
      const { promptTokens, completionTokens, cachedPromptTokens = 0 } = step.usage!;
      // The test provider reports half the prompt as cache hits, as DeepSeek's usage does.
      expect(cachedPromptTokens).toBe(Math.floor(promptTokens / 2));
      expect(cachedPromptTokens).toBeGreaterThan(0);
      const expected =
        ((promptTokens - cachedPromptTokens) * 0.28 + cachedPromptTokens * 0.028 + completionTokens * 0.42) /
        1e6;
      expect(step.cost).toBeCloseTo(expected, 15);
      expect(result.totals.cost).toBeCloseTo(expected, 15);
      expect(step.cost).toBeLessThan((promptTokens * 0.28 + completionTokens * 0.42) / 1e6);
    } finally {
      await deepseek.close();
    }
  });
});
