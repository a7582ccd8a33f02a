import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { streamingSpend } from '../../../src/executor/spend.ts';
import { liveSpend, overSpendLimit, spendLimitMessage } from '../../../src/executor/spend-limit.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { StepStatus } from '../../../src/records/run-types.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// The per-run spend limit, over real HTTP against the test provider: the run stops once what it has
// spent passes the limit, and the steps done before keep their answers.

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });
const LONG = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');

beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

let nextId = 0;
function model(text: string, perTokenMs = 0): string {
  const id = `limit${nextId++}`;
  provider.setModel({
    id,
    behaviour: { kind: 'fixed', text },
    ...(perTokenMs ? { latency: { firstTokenMs: 0, perTokenMs } } : {}),
  });
  return id;
}

/** A dear worker: $0.001 a prompt token, $0.002 an answer token. */
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

function sentFor(modelId: string): number {
  return provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === modelId,
  ).length;
}

describe('spend limit rules', () => {
  const running: StepStatus = {
    index: 0,
    worker: 'w1',
    task: 't',
    sees: [],
    depth: 0,
    state: 'running',
    text: 'x'.repeat(400),
    timings: {},
    attempts: 1,
    requests: [{ attempt: 1, outcome: 'in-flight', promptTokens: 100, completionTokens: 0, estimated: true }],
  };

  it('counts the answer streaming so far, priced as output, beside the requests sent', () => {
    // 100 prompt tokens at $0.001 and 100 streamed answer tokens at $0.002, in the request in flight.
    const streamed = streamingSpend(running.requests![0]!, worker('m'), 100, 0);
    expect(streamed).toMatchObject({ outcome: 'in-flight', promptTokens: 100, completionTokens: 100 });
    expect(streamed.estimated).toBe(true);
    expect(liveSpend([{ ...running, requests: [streamed] }])).toBeCloseTo(0.1 + 0.2, 12);
  });

  it('is over only past the limit, and no limit is never over', () => {
    expect(overSpendLimit(0.5, 0.5)).toBe(false);
    expect(overSpendLimit(0.5001, 0.5)).toBe(true);
    expect(overSpendLimit(1e9, undefined)).toBe(false);
  });

  it('names the limit and the spend', () => {
    expect(spendLimitMessage(0.5, 0.5123)).toBe(
      'Stopped at your $0.50 spend limit per run: $0.512 spent. Steps done are kept; raise the limit in Settings to go further.',
    );
  });

  it('writes a spend under a cent in plain decimals, never as an exponent', () => {
    expect(spendLimitMessage(0.005, 0.0051)).toContain('$0.0050 spend limit per run: $0.0051 spent');
    expect(spendLimitMessage(0.000001, 0.0000012)).toContain('$0.0000012 spent');
    expect(spendLimitMessage(0.0000001, 0.0000005)).not.toMatch(/\de-\d/);
  });
});

describe('a run with a spend limit', () => {
  it("stops once step 1 takes the run past the limit, keeping step 0's answer and never sending step 2", async () => {
    const m = model(LONG);
    const handle = startRun({
      question: 'Q?',
      transport,
      pool: [worker(m)],
      spendLimitUsd: 0.5,
      plan: {
        steps: [
          { worker: 'w1', task: 'Write.', sees: [] },
          { worker: 'w1', task: 'Improve it.', sees: [0] },
          { worker: 'w1', task: 'Improve it again.', sees: [1] },
        ],
      },
    });
    const result = await handle.result;
    // Step 0 costs about $0.25; step 1 (step 0's answer in its prompt, then its own) passes $0.50.
    expect(result.steps.map((s) => s.state)).toEqual(['done', 'cancelled', 'cancelled']);
    expect(result.steps[0]?.text).toBe(LONG);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^Stopped at your \$0\.50 spend limit per run: \$0\.\d+ spent\./);
    expect(result.steps[2]?.error).toBe('Not finished: the run stopped at its spend limit.');
    // Step 2 never left.
    expect(sentFor(m)).toBe(2);
    expect(result.totals.cost).toBeGreaterThan(0.5);
  });

  it("counts a thread's instructions in every step's spend: large ones stop a run that would pass without", async () => {
    const m = model('Done.');
    const plan = {
      steps: [
        { worker: 'w1', task: 'Write.', sees: [] },
        { worker: 'w1', task: 'Improve it.', sees: [0] },
      ],
    };
    const options = { question: 'Q?', transport, pool: [worker(m)], spendLimitUsd: 0.5, plan };
    const plain = await startRun(options).result;
    expect(plain.status).toBe('done');
    expect(plain.totals.cost).toBeLessThan(0.1);
    // About 300 tokens, $0.30 of prompt in each step: the second step takes the run past $0.50.
    const instructions = 'Be precise. '.repeat(150);
    const heavy = await startRun({ ...options, instructions }).result;
    expect(heavy.steps.map((s) => s.state)).toEqual(['done', 'cancelled']);
    expect(heavy.error).toMatch(/^Stopped at your \$0\.50 spend limit per run/);
    expect(heavy.steps[0]?.usage?.promptTokens).toBeGreaterThan(250);
  });

  it('stops an answer while it streams once it passes the limit', async () => {
    const m = model(LONG, 5);
    const handle = startRun({
      question: 'Q?',
      transport,
      pool: [worker(m)],
      spendLimitUsd: 0.1,
      plan: { steps: [{ worker: 'w1', task: 'Write.', sees: [] }] },
    });
    const result = await handle.result;
    const step = result.steps[0]!;
    expect(step.state).toBe('cancelled');
    expect(step.text.length).toBeGreaterThan(0);
    expect(step.text.length).toBeLessThan(LONG.length);
    expect(step.requests?.[0]?.outcome).toBe('cancelled');
    expect(result.error).toContain('$0.10 spend limit');
    // The stopped request still counts: it was paid for.
    expect(result.totals.cost).toBeGreaterThan(0);
  });

  it('is simply done when only its last answer passes the limit (nothing was stopped)', async () => {
    // What is counted as the request leaves and as the answer streams is priced from the worker's (tiny)
    // price table; the cost the provider reports with the last usage (OpenRouter's `usage.cost`) is what
    // passes the limit. Whatever estimator counts the tokens, only the end passes it.
    const reporting = await startProvider({ dialect: 'openrouter' });
    try {
      reporting.setModel({ id: 'ok', behaviour: { kind: 'fixed', text: 'ok' } });
      const question = Array.from({ length: 200 }, () => 'a').join(' ');
      const handle = startRun({
        question,
        transport,
        pool: [
          {
            ...worker('ok'),
            providerId: 'openrouter',
            baseURL: reporting.baseURL,
            price: { inputPerM: 0.001, outputPerM: 0.001 },
          },
        ],
        spendLimitUsd: 0.0001,
        plan: { steps: [{ worker: 'w1', task: 'Answer.', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.totals.cost).toBeGreaterThan(0.0001);
      expect(result.status).toBe('done');
      expect(result.error).toBeUndefined();
    } finally {
      await reporting.close();
    }
  });

  it('runs to the end under the limit', async () => {
    const m = model('short answer');
    const handle = startRun({
      question: 'Q?',
      transport,
      pool: [worker(m)],
      spendLimitUsd: 0.5,
      plan: {
        steps: [
          { worker: 'w1', task: 'Write.', sees: [] },
          { worker: 'w1', task: 'Check.', sees: [0] },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(result.error).toBeUndefined();
  });
});
