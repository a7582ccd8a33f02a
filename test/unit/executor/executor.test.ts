import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, startRun } from '../../../src/executor/executor.ts';
import type { ExecutorEvent, ReplanInput, Replanner } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { StepStatus } from '../../../src/records/run-types.ts';
import type { Plan, Step } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { stepsFromTokens } from '../../fixtures/plan-stream.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import {
  countPromptTokens,
  type RecordedRequest,
  startProvider,
  type TestProvider,
} from '../../provider/server.ts';

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });
/** Fast retries so fault tests do not wait on backoff (Retry-After is still honoured). */
const fastRetry = { baseDelayMs: 5, maxDelayMs: 20 };

beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  await provider.close();
});

let nextModel = 0;
/** Registers a fresh model on the provider (fresh fault counters) and returns its id. */
function model(
  options: {
    latency?: { firstTokenMs: number; perTokenMs: number };
    fault?: Parameters<TestProvider['setModel']>[0]['fault'];
    text?: string;
  } = {},
): string {
  const id = `m${nextModel++}`;
  provider.setModel({
    id,
    behaviour: options.text === undefined ? { kind: 'echo' } : { kind: 'fixed', text: options.text },
    ...(options.latency ? { latency: options.latency } : {}),
    ...(options.fault ? { fault: options.fault } : {}),
  });
  return id;
}

function worker(id: string, modelId: string, extra: Partial<WorkerSpec> = {}): WorkerSpec {
  return workerSpec({
    id,
    providerId: 'test',
    baseURL: provider.baseURL,
    model: modelId,
    maxConcurrency: 8,
    ...extra,
  });
}

function run(options: Omit<RunOptions, 'transport' | 'question'> & { question?: string }) {
  const events: ExecutorEvent[] = [];
  const handle = startRun({
    question: 'Q?',
    transport,
    retry: fastRetry,
    ...options,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { handle, events };
}

/** Chat requests for a model, in arrival order. */
function requestsFor(modelId: string): RecordedRequest[] {
  return provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === modelId,
  );
}

function messagesOf(request: RecordedRequest | undefined) {
  if (!request) throw new Error('no such request');
  return (request.body as { messages: { role: string; content: string }[] }).messages;
}

/** Polls until `test` holds (the provider has recorded a request, ...), so tests do not guess at timing. */
async function until(test: () => boolean): Promise<void> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > 15_000) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const t = (s: StepStatus | undefined) => s?.timings as Required<StepStatus['timings']>;

describe('executor over HTTP', () => {
  it('runs independent steps in parallel and a dependent step after both', async () => {
    const m = model({ latency: { firstTokenMs: 300, perTokenMs: 10 } });
    const { handle } = run({
      pool: [worker('w1', m)],
      plan: {
        steps: [
          { worker: 'w1', task: 'left branch', sees: [] },
          { worker: 'w1', task: 'right branch', sees: [] },
          { worker: 'w1', task: 'join', sees: [0, 1] },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const [a, b, c] = result.steps;
    // Overlap: each of the two branches started before the other ended.
    expect(t(a).startedAt).toBeLessThan(t(b).endedAt);
    expect(t(b).startedAt).toBeLessThan(t(a).endedAt);
    // The join started only after both ended, and its request reached the provider after that.
    expect(t(c).startedAt).toBeGreaterThanOrEqual(Math.max(t(a).endedAt, t(b).endedAt));
    const [r0, r1, r2] = requestsFor(m);
    expect(r2?.time).toBeGreaterThanOrEqual(Math.max(t(a).endedAt, t(b).endedAt));
    // Each branch's request reached the provider before the other branch ended.
    expect(r0?.time).toBeLessThanOrEqual(t(b).endedAt);
    expect(r1?.time).toBeLessThanOrEqual(t(a).endedAt);
    expect(result.answer).toBe('join');
    expect(result.finalStep).toBe(2);
  });

  it('sends with every step event a copy of the step as it then is, timings included', async () => {
    const { handle, events } = run({
      pool: [worker('w1', model())],
      plan: { steps: [{ worker: 'w1', task: 'one two three', sees: [] }] },
    });
    const result = await handle.result;
    const steps = events.flatMap((e) => ('status' in e ? [e] : []));
    expect(steps.map((e) => e.type)).toEqual(
      expect.arrayContaining(['step-queued', 'step-delta', 'step-done']),
    );
    for (const e of steps) expect(e.status.index).toBe(e.index);
    // Copies: what a listener got first is not changed by what the step did after.
    const [queued] = steps;
    expect(queued).toMatchObject({ type: 'step-queued', status: { state: 'queued', text: '', attempts: 0 } });
    expect(queued?.status.timings.startedAt).toBeUndefined();
    for (const e of steps) if (e.type === 'step-delta') expect(e.status.text).toBe(e.answer);
    // The last event's snapshot is the step as the run ended.
    expect(steps.at(-1)?.status).toEqual(result.steps[0]);
  });

  it('keeps to the per-provider concurrency limit', async () => {
    const m = model({ latency: { firstTokenMs: 150, perTokenMs: 5 } });
    const other = model({ latency: { firstTokenMs: 150, perTokenMs: 5 } });
    const plan: Plan = {
      steps: [0, 1, 2, 3].map((i) => ({ worker: i < 3 ? 'limited' : 'free', task: `task ${i}`, sees: [] })),
    };
    const { handle } = run({
      pool: [
        worker('limited', m, { providerId: 'p1', maxConcurrency: 2 }),
        worker('free', other, { providerId: 'p2' }),
      ],
      plan,
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const limited = result.steps.slice(0, 3);
    // At every step's start, at most 2 steps of provider p1 were running (itself included).
    for (const s of limited) {
      const running = limited.filter(
        (o) => t(o).startedAt <= t(s).startedAt && t(o).endedAt > t(s).startedAt,
      );
      expect(running.length).toBeLessThanOrEqual(2);
    }
    // The third had to wait for a slot; the other provider's step did not.
    const third = limited.find((s) => s.index === 2);
    expect(t(third).startedAt).toBeGreaterThanOrEqual(Math.min(t(limited[0]).endedAt, t(limited[1]).endedAt));
    expect(t(result.steps[3]).startedAt).toBeLessThan(t(limited[0]).endedAt);
  });

  it('adds no abort listener per waiting step: a 50-step run warns of no listener leak', async () => {
    // Node warns (MaxListenersExceededWarning) once an AbortSignal has more than 10 abort listeners: a
    // run's signal had one per step begun, and a 50-step run with a provider limit keeps most waiting.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const m = model();
      const { handle } = run({
        pool: [worker('w1', m, { maxConcurrency: 2 })],
        maxSteps: 50,
        plan: {
          steps: Array.from({ length: 50 }, (_, i) => ({ worker: 'w1', task: `task ${i}`, sees: [] })),
        },
      });
      const result = await handle.result;
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('done');
      expect(result.steps.every((s) => s.state === 'done')).toBe(true);
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('runs strictly one step at a time in sequential mode', async () => {
    const m = model({ latency: { firstTokenMs: 50, perTokenMs: 5 } });
    const { handle } = run({
      pool: [worker('w1', m)],
      sequential: true,
      plan: { steps: [0, 1, 2].map((i) => ({ worker: 'w1', task: `t${i}`, sees: [] as number[] })) },
    });
    const steps = (await handle.result).steps;
    expect(t(steps[1]).startedAt).toBeGreaterThanOrEqual(t(steps[0]).endedAt);
    expect(t(steps[2]).startedAt).toBeGreaterThanOrEqual(t(steps[1]).endedAt);
  });

  it('sends each step exactly its context: system prompt, question, seen pairs, own task', async () => {
    const e = model();
    const u = model({ text: 'FIXED ANSWER' });
    const pool = [worker('echo', e, { systemPrompt: 'Be brief.' }), worker('fixed', u)];
    const { handle } = run({
      question: 'Why is the sky blue?',
      pool,
      plan: {
        steps: [
          { worker: 'echo', task: 'alpha', sees: [] },
          { worker: 'fixed', task: 'beta', sees: [] },
          { worker: 'echo', task: 'gamma', sees: [1, 0] },
          { worker: 'fixed', task: 'delta', sees: 'all' },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const echoBodies = requestsFor(e).map(messagesOf);
    expect(echoBodies).toContainEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Why is the sky blue?' },
      { role: 'user', content: 'alpha' },
      { role: 'assistant', content: 'alpha' },
      { role: 'user', content: 'beta' },
      { role: 'assistant', content: 'FIXED ANSWER' },
      { role: 'user', content: 'gamma' },
    ]);
    expect(messagesOf(requestsFor(u).at(-1))).toEqual([
      { role: 'user', content: 'Why is the sky blue?' },
      { role: 'user', content: 'alpha' },
      { role: 'assistant', content: 'alpha' },
      { role: 'user', content: 'beta' },
      { role: 'assistant', content: 'FIXED ANSWER' },
      { role: 'user', content: 'gamma' },
      { role: 'assistant', content: 'gamma' },
      { role: 'user', content: 'delta' },
    ]);
  });

  it("sends the thread's instructions in the request body of every worker step", async () => {
    const e = model();
    const u = model({ text: 'FIXED ANSWER' });
    const instructions = 'Answer as a pirate would.';
    const pool = [worker('echo', e, { systemPrompt: 'Be brief.' }), worker('fixed', u)];
    const result = await run({
      question: 'Why is the sky blue?',
      pool,
      instructions,
      plan: {
        steps: [
          { worker: 'echo', task: 'alpha', sees: [] },
          { worker: 'fixed', task: 'beta', sees: [0] },
          { worker: 'echo', task: 'gamma', sees: [1] },
        ],
      },
    }).handle.result;
    expect(result.status).toBe('done');
    const bodies = [...requestsFor(e), ...requestsFor(u)].map(messagesOf);
    expect(bodies).toHaveLength(3);
    for (const messages of bodies) expect(messages.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(requestsFor(e).map((r) => messagesOf(r)[0])).toEqual([
      { role: 'system', content: `Be brief.\n\n${instructions}` },
      { role: 'system', content: `Be brief.\n\n${instructions}` },
    ]);
    expect(messagesOf(requestsFor(u)[0])[0]).toEqual({ role: 'system', content: instructions });
    // Each step says what they added to its input (the step card shows it).
    for (const step of result.steps) expect(step.instructions?.tokens).toBeGreaterThan(3);
  });

  it('leaves the question out when includeQuestion is false', async () => {
    const e = model();
    await run({
      pool: [worker('w', e)],
      includeQuestion: false,
      plan: { steps: [{ worker: 'w', task: 'only', sees: [] }] },
    }).handle.result;
    expect(messagesOf(requestsFor(e)[0])).toEqual([{ role: 'user', content: 'only' }]);
  });

  it('records usage as the provider counted it, and cost from the price table', async () => {
    const e = model();
    const { handle } = run({
      question: 'one two three',
      pool: [worker('w', e, { price: { inputPerM: 2, outputPerM: 10 } }), worker('free', e)],
      plan: {
        steps: [
          { worker: 'w', task: 'four five', sees: [] },
          { worker: 'free', task: 'six', sees: [0] },
        ],
      },
    });
    const result = await handle.result;
    const [first, second] = result.steps;
    const prompt0 = countPromptTokens(messagesOf(requestsFor(e)[0]));
    expect(first?.usage).toEqual({ promptTokens: prompt0, completionTokens: 2 });
    expect(prompt0).toBe(5);
    expect(first?.cost).toBeCloseTo((5 * 2 + 2 * 10) / 1e6, 12);
    expect(second?.usage).toEqual({ promptTokens: 3 + 2 + 2 + 1, completionTokens: 1 });
    expect(second?.cost).toBeUndefined();
    expect(result.totals).toMatchObject({ promptTokens: 13, completionTokens: 3, steps: 2, done: 2 });
    expect(result.totals.cost).toBeCloseTo(30 / 1e6, 12);
  });

  describe('faults', () => {
    it.each(['401', '403', '404'] as const)('%s fails the step without a retry', async (kind) => {
      const m = model({ fault: { kind } });
      const { handle, events } = run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.status).toBe('failed');
      expect(result.steps[0]?.state).toBe('failed');
      expect(result.steps[0]?.attempts).toBe(1);
      expect(result.failed[0]?.reason).toContain(`(${kind})`);
      expect(requestsFor(m)).toHaveLength(1);
      expect(events.some((e) => e.type === 'step-retrying')).toBe(false);
    });

    it('429 with Retry-After is retried after at least that long, then succeeds', async () => {
      const m = model({ fault: { kind: '429', times: 1, retryAfterMs: 400 } });
      const { handle, events } = run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.status).toBe('done');
      const [first, second] = requestsFor(m);
      expect((second?.time ?? 0) - (first?.time ?? 0)).toBeGreaterThanOrEqual(400);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'step-retrying', attempt: 2, delayMs: 400 }),
      );
      expect(result.steps[0]?.attempts).toBe(2);
    });

    it('a Retry-After beyond the cap fails at once with how long it asked for', async () => {
      const m = model({ fault: { kind: '429', retryAfterMs: 90_000 } });
      const { handle } = run({
        pool: [worker('w', m)],
        retry: { ...fastRetry, maxRetryAfterMs: 30_000 },
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.failed[0]?.reason).toMatch(/^Rate limited for 90 s/);
      expect(requestsFor(m)).toHaveLength(1);
    });

    it.each(['500', '503'] as const)('%s twice is retried and then succeeds', async (kind) => {
      const m = model({ fault: { kind, times: 2, retryAfterMs: 10 } });
      const { handle } = run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'w', task: 'hello', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.status).toBe('done');
      expect(result.answer).toBe('hello');
      expect(requestsFor(m)).toHaveLength(3);
    });

    it('500 on every attempt fails after maxAttempts', async () => {
      const m = model({ fault: { kind: '500' } });
      const { handle } = run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.failed[0]?.reason).toContain('gave up after 3 attempts');
      expect(requestsFor(m)).toHaveLength(3);
    });

    it.each(['cut', 'malformed'] as const)(
      'a %s stream is retried; the partial text is discarded',
      async (kind) => {
        const m = model({ fault: { kind, times: 1 } });
        const { handle, events } = run({
          pool: [worker('w', m)],
          plan: { steps: [{ worker: 'w', task: 'one two three four five six', sees: [] }] },
        });
        const result = await handle.result;
        expect(result.status).toBe('done');
        expect(result.answer).toBe('one two three four five six');
        expect(requestsFor(m)).toHaveLength(2);
        expect(events).toContainEqual(expect.objectContaining({ type: 'step-retrying', attempt: 2 }));
      },
    );

    it('a stall hits the first-token timeout, which is retried', async () => {
      const m = model({ fault: { kind: 'stall', times: 1 } });
      const { handle, events } = run({
        pool: [worker('w', m)],
        firstTokenTimeoutMs: 1000,
        plan: { steps: [{ worker: 'w', task: 'after the stall', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.status).toBe('done');
      expect(result.answer).toBe('after the stall');
      const retry = events.find((e) => e.type === 'step-retrying');
      expect(retry).toMatchObject({ reason: 'No answer began within 1 s.' });
      expect(requestsFor(m)).toHaveLength(2);
    });

    it('a stall on every attempt fails with the first-token timeout reason', async () => {
      const m = model({ fault: { kind: 'stall' } });
      const { handle } = run({
        pool: [worker('w', m)],
        firstTokenTimeoutMs: 200,
        retry: { ...fastRetry, maxAttempts: 2 },
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      expect(result.failed[0]?.reason).toBe('No answer began within 0.2 s. (gave up after 2 attempts)');
      expect(requestsFor(m)).toHaveLength(2);
    });

    it('the step timeout fails the step with no further attempt, even mid-stream', async () => {
      // 40 tokens at 50 ms each: about 2 s of streaming; the step may take 800 ms.
      const text = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
      const m = model({ text, latency: { firstTokenMs: 10, perTokenMs: 50 } });
      const { handle } = run({
        pool: [worker('w', m)],
        stepTimeoutMs: 800,
        firstTokenTimeoutMs: 5000,
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      const result = await handle.result;
      const step = result.steps[0];
      expect(step?.state).toBe('failed');
      expect(step?.error).toBe('The step took longer than its 0.8 s limit.');
      expect(step?.text.length).toBeGreaterThan(0);
      expect(step?.text.length).toBeLessThan(text.length);
      expect(requestsFor(m)).toHaveLength(1);
    });

    it('fails every dependent of a failed step with the reason', async () => {
      const bad = model({ fault: { kind: '401' } });
      const good = model();
      const { handle } = run({
        pool: [worker('bad', bad), worker('good', good)],
        plan: {
          steps: [
            { worker: 'bad', task: 'a', sees: [] },
            { worker: 'good', task: 'b', sees: [] },
            { worker: 'good', task: 'c', sees: [0] },
            { worker: 'good', task: 'd', sees: [2, 1] },
          ],
        },
      });
      const result = await handle.result;
      expect(result.status).toBe('failed');
      expect(result.steps.map((s) => s.state)).toEqual(['failed', 'done', 'failed', 'failed']);
      const root = result.steps[0]?.error ?? '';
      expect(root).toContain('The key was rejected (401)');
      expect(result.failed).toEqual([
        { index: 0, reason: root },
        { index: 2, reason: `step 0 failed: ${root}` },
        { index: 3, reason: `step 0 failed: ${root}` },
      ]);
      expect(requestsFor(good)).toHaveLength(1);
    });

    it('reports partial when the final answer exists but another step failed', async () => {
      const bad = model({ fault: { kind: '404' } });
      const good = model();
      const result = await run({
        pool: [worker('bad', bad), worker('good', good)],
        plan: {
          steps: [
            { worker: 'bad', task: 'a', sees: [] },
            { worker: 'good', task: 'b', sees: [] },
          ],
        },
      }).handle.result;
      expect(result.status).toBe('partial');
      expect(result.answer).toBe('b');
    });
  });

  describe('cancel', () => {
    const latency = { firstTokenMs: 4000, perTokenMs: 10 };

    it('cancels one running step promptly; its dependents are cancelled upstream, others go on', async () => {
      const slow = model({ latency });
      const fast = model();
      const { handle } = run({
        pool: [worker('slow', slow), worker('fast', fast)],
        plan: {
          steps: [
            { worker: 'slow', task: 'a', sees: [] },
            { worker: 'fast', task: 'b', sees: [] },
            { worker: 'fast', task: 'c', sees: [0] },
            { worker: 'fast', task: 'd', sees: [1] },
          ],
        },
      });
      await until(() => requestsFor(slow).length === 1);
      const cancelledAt = Date.now();
      handle.cancelStep(0);
      const result = await handle.result;
      expect(result.steps.map((s) => s.state)).toEqual(['cancelled', 'done', 'cancelled', 'done']);
      expect(result.steps[2]?.error).toBe('step 0 was cancelled (cancelled upstream)');
      // Ended long before the model would have sent its first token.
      expect(t(result.steps[0]).endedAt - cancelledAt).toBeLessThan(latency.firstTokenMs / 2);
      expect(result.answer).toBe('d');
      expect(result.status).toBe('partial');
      expect(requestsFor(fast)).toHaveLength(2);
    });

    it('cancels a queued step before it starts', async () => {
      const slow = model({ latency: { firstTokenMs: 200, perTokenMs: 1 } });
      const { handle } = run({
        pool: [worker('w', slow)],
        plan: {
          steps: [
            { worker: 'w', task: 'a', sees: [] },
            { worker: 'w', task: 'b', sees: [0] },
            { worker: 'w', task: 'c', sees: [0] },
          ],
        },
      });
      handle.cancelStep(1);
      const result = await handle.result;
      expect(result.steps.map((s) => s.state)).toEqual(['done', 'cancelled', 'done']);
      expect(requestsFor(slow)).toHaveLength(2);
    });

    it('cancels the whole run promptly', async () => {
      const slow = model({ latency });
      const { handle, events } = run({
        pool: [worker('w', slow)],
        plan: {
          steps: [
            { worker: 'w', task: 'a', sees: [] },
            { worker: 'w', task: 'b', sees: [] },
            { worker: 'w', task: 'c', sees: 'all' },
          ],
        },
      });
      await until(() => requestsFor(slow).length === 2);
      const cancelledAt = Date.now();
      handle.cancel();
      const result = await handle.result;
      expect(Date.now() - cancelledAt).toBeLessThan(latency.firstTokenMs / 2);
      expect(result.status).toBe('cancelled');
      expect(result.steps.every((s) => s.state === 'cancelled')).toBe(true);
      expect(requestsFor(slow)).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({ type: 'run-done' });
    });

    it('cancels during a retry wait', async () => {
      const m = model({ fault: { kind: '429', retryAfterMs: 20_000 } });
      const { handle } = run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'w', task: 'x', sees: [] }] },
      });
      await until(() => requestsFor(m).length === 1);
      const cancelledAt = Date.now();
      handle.cancel();
      const result = await handle.result;
      expect(Date.now() - cancelledAt).toBeLessThan(10_000);
      expect(result.steps[0]?.state).toBe('cancelled');
    });
  });

  describe('plans', () => {
    it('rejects an invalid plan without sending anything', async () => {
      const m = model();
      const result = await run({
        pool: [worker('w', m)],
        plan: { steps: [{ worker: 'nobody', task: 'x', sees: [] }] },
      }).handle.result;
      expect(result.status).toBe('failed');
      expect(result.error).toContain('"nobody"');
      expect(requestsFor(m)).toHaveLength(0);
    });

    it('cancelled while the plan streams, a source that fails to close leaves no unhandled rejection', async () => {
      const m = model();
      let closed = false;
      const source: AsyncIterable<Step> = {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<Step>>(() => {}),
          return: () => {
            closed = true;
            return Promise.reject(new Error('source broke while closing'));
          },
        }),
      };
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const { handle } = run({ pool: [worker('w', m)], plan: source });
        handle.cancel();
        expect((await handle.result).status).toBe('cancelled');
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(closed).toBe(true);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });

    it('starts step 0 while later steps are still being written', async () => {
      const m = model({ latency: { firstTokenMs: 20, perTokenMs: 1 } });
      let step0RequestSeenBeforeStep2 = false;
      async function* steps(): AsyncGenerator<Step> {
        yield { worker: 'w', task: 'first', sees: [] };
        await new Promise((resolve) => setTimeout(resolve, 200));
        yield { worker: 'w', task: 'second', sees: [0] };
        await new Promise((resolve) => setTimeout(resolve, 200));
        step0RequestSeenBeforeStep2 = requestsFor(m).length >= 1;
        yield { worker: 'w', task: 'third', sees: 'all' };
      }
      const result = await run({ pool: [worker('w', m)], plan: steps() }).handle.result;
      expect(step0RequestSeenBeforeStep2).toBe(true);
      expect(result.status).toBe('done');
      expect(result.answer).toBe('third');
    });

    it('runs a plan streamed as tokens through the incremental parser, starting step 0 before the plan ends', async () => {
      const m = model();
      const text = JSON.stringify({
        thought: 'two steps',
        steps: [
          { worker: 'w', task: 'first', sees: [] },
          { worker: 'w', task: 'second', sees: [0] },
        ],
      });
      let lastTokenAt = 0;
      async function* tokens(): AsyncGenerator<string> {
        for (let i = 0; i < text.length; i += 4) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield text.slice(i, i + 4);
        }
        lastTokenAt = Date.now();
      }
      const result = await run({
        pool: [worker('w', m)],
        plan: stepsFromTokens(tokens(), { workerIds: ['w'] }),
      }).handle.result;
      expect(result.status).toBe('done');
      expect(result.answer).toBe('second');
      expect(requestsFor(m)[0]?.time).toBeLessThanOrEqual(lastTokenAt);
    });

    it('fails the run with the parser message when a streamed step is invalid', async () => {
      const m = model();
      async function* tokens(): AsyncGenerator<string> {
        yield '{"steps":[{"worker":"w","task":"ok","sees":[]},';
        yield '{"worker":"ghost","task":"x","sees":[]}]}';
      }
      const result = await run({
        pool: [worker('w', m)],
        plan: stepsFromTokens(tokens(), { workerIds: ['w'] }),
      }).handle.result;
      expect(result.status).toBe('failed');
      expect(result.error).toContain('"ghost"');
    });

    it('fails the run when the streamed plan breaks', async () => {
      const m = model();
      async function* steps(): AsyncGenerator<Step> {
        yield { worker: 'w', task: 'first', sees: [] };
        yield { worker: 'w', task: 'bad', sees: [5] };
      }
      const result = await run({ pool: [worker('w', m)], plan: steps() }).handle.result;
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/^The plan could not be read: Step 1 sees step 5/);
    });
  });

  describe('recursion', () => {
    function conductor(
      reply: (input: ReplanInput, call: number) => Step[],
    ): Replanner & { calls: ReplanInput[] } {
      const calls: ReplanInput[] = [];
      return {
        calls,
        async replan(input) {
          calls.push(input);
          return reply(input, calls.length);
        },
      };
    }

    it('appends corrective steps, runs them, and takes the last one as the answer', async () => {
      const m = model();
      const c = conductor((_input, call) =>
        call === 1 ? [{ worker: 'w', task: 'corrected', sees: [0] }] : [],
      );
      const { handle, events } = run({
        pool: [worker('w', m)],
        conductor: c,
        plan: {
          steps: [
            { worker: 'w', task: 'draft', sees: [] },
            { worker: 'self', task: 'check the draft', sees: 'all' },
          ],
        },
      });
      const result = await handle.result;
      expect(c.calls).toHaveLength(1);
      expect(c.calls[0]).toMatchObject({ question: 'Q?', depth: 1, answers: ['draft', undefined] });
      expect(c.calls[0]?.steps).toHaveLength(2);
      expect(events).toContainEqual(expect.objectContaining({ type: 'steps-added', from: 2, depth: 1 }));
      expect(result.steps.map((s) => [s.worker, s.state, s.depth])).toEqual([
        ['w', 'done', 0],
        ['self', 'done', 0],
        ['w', 'done', 1],
      ]);
      expect(result.steps[1]?.text).toBe('Added step 2.');
      expect(result.answer).toBe('corrected');
      expect(result.finalStep).toBe(2);
      // The corrective step saw step 0's (task, answer) pair.
      expect(messagesOf(requestsFor(m).at(-1))).toEqual([
        { role: 'user', content: 'Q?' },
        { role: 'user', content: 'draft' },
        { role: 'assistant', content: 'draft' },
        { role: 'user', content: 'corrected' },
      ]);
    });

    it('accepts the current last answer when the conductor returns []', async () => {
      const m = model();
      const c = conductor(() => []);
      const result = await run({
        pool: [worker('w', m)],
        conductor: c,
        plan: {
          steps: [
            { worker: 'w', task: 'the answer', sees: [] },
            { worker: 'self', task: 'verify', sees: 'all' },
          ],
        },
      }).handle.result;
      expect(result.status).toBe('done');
      expect(result.answer).toBe('the answer');
      expect(result.finalStep).toBe(0);
      expect(result.steps[1]?.text).toBe('Accepted the current answer.');
    });

    it('accepts without asking the conductor when a self step sees no answer', async () => {
      const m = model();
      const c = conductor(() => [{ worker: 'w', task: 'never added', sees: [] }]);
      const result = await run({
        pool: [worker('w', m)],
        conductor: c,
        plan: {
          steps: [
            { worker: 'self', task: 'check nothing', sees: [] },
            { worker: 'w', task: 'the answer', sees: [] },
            { worker: 'self', task: 'check the earlier self-check only', sees: [0] },
          ],
        },
      }).handle.result;
      expect(c.calls).toHaveLength(0);
      expect(result.steps.map((s) => [s.worker, s.state])).toEqual([
        ['self', 'done'],
        ['w', 'done'],
        ['self', 'done'],
      ]);
      expect(result.steps[0]?.text).toBe('Nothing to check yet: this self-check sees no answer.');
      expect(result.steps[2]?.text).toBe('Nothing to check yet: this self-check sees no answer.');
      expect(result.answer).toBe('the answer');
    });

    it('holds the depth cap even when the conductor always asks for more', async () => {
      const m = model();
      const c = conductor((input) => [
        { worker: 'w', task: `again at depth ${input.depth}`, sees: 'all' },
        { worker: 'self', task: 'check again', sees: 'all' },
      ]);
      const result = await run({
        pool: [worker('w', m)],
        conductor: c,
        maxDepth: 2,
        plan: {
          steps: [
            { worker: 'w', task: 'start', sees: [] },
            { worker: 'self', task: 'check', sees: 'all' },
          ],
        },
      }).handle.result;
      expect(c.calls.map((call) => call.depth)).toEqual([1, 2]);
      expect(result.steps).toHaveLength(6);
      expect(result.steps.at(-1)).toMatchObject({ worker: 'self', depth: 2, state: 'done' });
      expect(result.steps.at(-1)?.text).toContain('recursion limit (2)');
      expect(result.answer).toBe('again at depth 2');
      expect(result.status).toBe('done');
    });

    it('holds the total step cap', async () => {
      const m = model();
      const c = conductor(() => [
        { worker: 'w', task: 'more', sees: [] },
        { worker: 'w', task: 'more', sees: [] },
      ]);
      const result = await run({
        pool: [worker('w', m)],
        conductor: c,
        maxTotalSteps: 3,
        plan: {
          steps: [
            { worker: 'w', task: 'start', sees: [] },
            { worker: 'self', task: 'check', sees: 'all' },
          ],
        },
      }).handle.result;
      expect(result.steps).toHaveLength(2);
      expect(result.steps[1]?.text).toContain('limit of 3 steps per run');
      expect(result.answer).toBe('start');
    });

    it('fails the self step when the corrective steps are invalid', async () => {
      const m = model();
      const c = conductor(() => [{ worker: 'w', task: 'x', sees: [7] }]);
      const result = await run({
        pool: [worker('w', m)],
        conductor: c,
        plan: {
          steps: [
            { worker: 'w', task: 'start', sees: [] },
            { worker: 'self', task: 'check', sees: 'all' },
          ],
        },
      }).handle.result;
      expect(result.steps[1]?.state).toBe('failed');
      expect(result.steps[1]?.error).toContain("The conductor's corrective steps are not valid");
      expect(result.answer).toBe('start');
      expect(result.status).toBe('partial');
    });

    // The card read "llama.cpp failed: Failed to format input: unordered_map::at: key not found".
    it('fails a self step whose engine failed in words: what failed and what to do, not llama.cpp’s text', async () => {
      const m = model();
      const engine = 'llama.cpp failed: Failed to format input: unordered_map::at: key not found';
      const failing = conductor(() => {
        // As the error arrives from the conductor thread: a name and a message (comlink).
        throw Object.assign(new Error(engine), { name: 'EngineFailure' });
      });
      const result = await run({
        pool: [worker('w', m)],
        conductor: failing,
        plan: {
          steps: [
            { worker: 'w', task: 'start', sees: [] },
            { worker: 'self', task: 'check', sees: 'all' },
          ],
        },
      }).handle.result;
      expect(result.steps[1]?.state).toBe('failed');
      expect(result.steps[1]?.error).toBe(
        'The self-check could not run. The on-device model could not read the text it was given: its chat template or its vocabulary cannot take some of it. Choose another conductor model on Start. The answers above stand, unchecked.',
      );
      expect(result.steps[1]?.error).not.toMatch(/llama|unordered_map/);
      expect(result.answer).toBe('start');
    });
  });
});
