import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { resumedStatuses } from '../../../src/executor/resume.ts';
import { estimateTokens, priceOf } from '../../../src/executor/spend.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { StepRecordSchema } from '../../../src/records/record-schema.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { openrouterCost } from '../../provider/dialects/index.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { type RecordedRequest, startProvider, type TestProvider } from '../../provider/server.ts';

// The executor's side of reasoning models and provider-reported cost, over real HTTP against the test
// provider speaking DeepSeek's and OpenRouter's dialects.

const THOUGHT = 'First I add two and two, which gives four, then I check it twice over.';
let deepseek: TestProvider;
let openrouter: TestProvider;
/** Speaks plain OpenAI, which sends usage only when asked: a worker whose dialect does not ask gets none. */
let noUsage: TestProvider;

beforeAll(async () => {
  const thinker = {
    id: 'thinker',
    behaviour: { kind: 'fixed' as const, text: 'The answer is 4.' },
    reasoning: { text: THOUGHT },
  };
  // Thinks for longer (15 tokens, 250 ms apart: 3.5 s) than the first-token timeout below (2.5 s), which
  // leaves the first reasoning token ample time to arrive on a loaded machine.
  const slowThinker = { ...thinker, id: 'slow-thinker', reasoning: { text: THOUGHT, perTokenMs: 250 } };
  deepseek = await startProvider({ dialect: 'deepseek', models: [thinker, slowThinker] });
  openrouter = await startProvider({ dialect: 'openrouter', models: [thinker] });
  noUsage = await startProvider({ models: [thinker] });
});
afterAll(async () => {
  await Promise.all([deepseek.close(), openrouter.close(), noUsage.close()]);
});

function worker(id: string, providerId: string, provider: TestProvider, model: string): WorkerSpec {
  return workerSpec({
    id,
    providerId,
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 4,
    price: { inputPerM: 1, outputPerM: 1 },
  });
}

const posts = (p: TestProvider): RecordedRequest[] => p.requests.filter((r) => r.method === 'POST');

describe('reasoning models', () => {
  it('reasoning keeps the stream alive: a model that thinks past the first-token timeout is not retried', async () => {
    deepseek.clearRequests();
    const handle = startRun({
      question: 'What is 2+2?',
      plan: { steps: [{ worker: 'r', task: 'Answer.', sees: [] }] },
      pool: [worker('r', 'deepseek', deepseek, 'slow-thinker')],
      transport: createOpenAITransport({ fetch: directFetch }),
      firstTokenTimeoutMs: 2500,
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
    const result = await handle.result;
    expect(result.failed).toEqual([]);
    expect(result.status).toBe('done');
    expect(posts(deepseek)).toHaveLength(1);
    expect(result.steps[0]?.attempts).toBe(1);
  });

  it('keeps reasoning on the step, out of the answer and out of what later steps are sent', async () => {
    deepseek.clearRequests();
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'What is 2+2?',
      plan: {
        steps: [
          { worker: 'r', task: 'Think it through.', sees: [] },
          { worker: 'r', task: 'Check the answer.', sees: [0] },
        ],
      },
      pool: [worker('r', 'deepseek', deepseek, 'thinker')],
      transport: createOpenAITransport({ fetch: directFetch }),
      onEvent: (event) => events.push(event),
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const [first] = result.steps;
    expect(first?.text).toBe('The answer is 4.');
    expect(first?.reasoning).toBe(THOUGHT);
    expect(result.answer).not.toContain('First I add');
    expect(events.some((e) => e.type === 'step-reasoning' && e.index === 0)).toBe(true);
    // The second step sees the first one's answer only.
    const second = posts(deepseek)[1]?.body as { messages: { content: string }[] };
    expect(JSON.stringify(second.messages)).toContain('The answer is 4.');
    expect(JSON.stringify(second.messages)).not.toContain('First I add');
    // Reasoning tokens are counted, with the provider's cache hits.
    expect(first?.usage).toMatchObject({ reasoningTokens: 15, cachedPromptTokens: expect.any(Number) });
    expect(first?.requests?.[0]).toMatchObject({ reasoningTokens: 15, completionTokens: 15 + 4 });
    expect(result.totals.reasoningTokens).toBe(30);
  });

  it('estimates reasoning as output when the provider sends no usage', async () => {
    const handle = startRun({
      question: 'What is 2+2?',
      plan: { steps: [{ worker: 'm', task: 'Answer.', sees: [] }] },
      // The OpenRouter dialect does not ask for usage; this provider sends none unasked.
      pool: [worker('m', 'openrouter', noUsage, 'thinker')],
      transport: createOpenAITransport({ fetch: directFetch }),
    });
    const result = await handle.result;
    const request = result.steps[0]?.requests?.[0];
    expect(request).toMatchObject({
      estimated: true,
      reasoningTokens: estimateTokens(THOUGHT),
      completionTokens: estimateTokens('The answer is 4.') + estimateTokens(THOUGHT),
    });
  });
});

describe('provider-reported cost', () => {
  it("OpenRouter's usage.cost replaces the price table's for that request", async () => {
    const spec = worker('o', 'openrouter', openrouter, 'thinker');
    const handle = startRun({
      question: 'What is 2+2?',
      plan: { steps: [{ worker: 'o', task: 'Answer.', sees: [] }] },
      pool: [spec],
      transport: createOpenAITransport({ fetch: directFetch }),
    });
    const result = await handle.result;
    const step = result.steps[0];
    const usage = step?.usage;
    if (!usage) throw new Error('no usage');
    const reported = openrouterCost({
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    });
    expect(reported).not.toBe(priceOf(spec, usage));
    expect(step?.cost).toBe(reported);
    expect(step?.requests?.[0]).toMatchObject({ cost: reported, costReported: true });
    expect(result.totals.cost).toBe(reported);
  });
});

describe('resume', () => {
  it('a step cut off mid-thought starts again without the lost reasoning, its output counted as billed', () => {
    const reasoning = 'x'.repeat(400);
    const [fresh] = resumedStatuses(
      [
        {
          runId: 'r',
          index: 0,
          worker: 'w',
          task: 't',
          sees: [],
          depth: 0,
          state: 'running',
          text: '',
          reasoning,
          requests: [
            { attempt: 1, outcome: 'in-flight', promptTokens: 10, completionTokens: 0, estimated: true },
          ],
          timings: { queuedAt: 1 },
          attempts: 1,
        },
      ],
      [],
      new Map(),
    );
    expect(fresh?.reasoning).toBeUndefined();
    expect(fresh?.requests?.[0]).toMatchObject({
      outcome: 'interrupted',
      completionTokens: estimateTokens(reasoning),
      reasoningTokens: estimateTokens(reasoning),
    });
  });
});

describe('stored records', () => {
  it('a step record with reasoning, reasoning tokens and a reported cost reads back; one without still loads', () => {
    const old = {
      runId: 'r',
      index: 0,
      worker: 'w',
      task: 't',
      sees: [],
      depth: 0,
      state: 'done',
      text: 'a',
      usage: { promptTokens: 1, completionTokens: 2 },
      requests: [{ attempt: 1, outcome: 'answered', promptTokens: 1, completionTokens: 2, cost: 0.1 }],
      timings: {},
      attempts: 1,
    };
    expect(StepRecordSchema.safeParse(old).success).toBe(true);
    const record = {
      ...old,
      reasoning: 'thinking',
      usage: { promptTokens: 1, completionTokens: 2, reasoningTokens: 1, cachedPromptTokens: 1 },
      requests: [{ ...old.requests[0], reasoningTokens: 1, costReported: true }],
    };
    const parsed = StepRecordSchema.parse(record);
    expect(parsed.reasoning).toBe('thinking');
    expect(parsed.usage?.reasoningTokens).toBe(1);
    expect(parsed.requests?.[0]?.costReported).toBe(true);
  });
});
