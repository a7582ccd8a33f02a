/**
 * How the executor's retry policy treats what the transport makes of empty answers and non-answers, over
 * real HTTP against the test provider: an empty answer is a failed step with a reason, retried once; a
 * non-answer is named and not retried; a non-streamed completion is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import type { FaultKind } from '../../provider/server.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

let next = 0;
/** A fresh model (fresh fault counter) that echoes, with `fault` on every request or the first `times`. */
function model(kind: FaultKind, times?: number): string {
  const id = `m${next++}`;
  provider.setModel({
    id,
    behaviour: { kind: 'echo' },
    fault: times === undefined ? { kind } : { kind, times },
  });
  return id;
}

function runOne(modelId: string) {
  const worker: WorkerSpec = workerSpec({
    id: 'w',
    label: 'Echo worker',
    providerId: 'test',
    baseURL: provider.baseURL,
    model: modelId,
    maxConcurrency: 4,
  });
  return startRun({
    question: 'Q?',
    transport: createOpenAITransport({ fetch: directFetch }),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    pool: [worker],
    plan: { steps: [{ worker: 'w', task: 'say something', sees: [] }] },
  }).result;
}

const posts = (modelId: string) =>
  provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === modelId,
  );

describe('empty answers', () => {
  it.each(['empty-done', 'empty-finish', 'empty-no-choices'] as const)(
    '%s on every attempt fails the step with the reason after one retry, and is no final answer',
    async (kind) => {
      const m = model(kind);
      const result = await runOne(m);
      expect(result.status).toBe('failed');
      expect(result.steps[0]?.state).toBe('failed');
      expect(result.answer ?? '').toBe('');
      expect(result.failed[0]?.reason).toMatch(/no answer text.*\(gave up after 2 attempts\)$/);
      expect(posts(m)).toHaveLength(2);
    },
  );

  it('an empty answer once is retried, and the retry answers', async () => {
    const m = model('empty-finish', 1);
    const result = await runOne(m);
    expect(result.status).toBe('done');
    expect(result.answer).toBe('say something');
    expect(posts(m)).toHaveLength(2);
  });
});

describe('non-answers', () => {
  it.each([
    ['302', /redirect/i],
    ['307', /redirect/i],
    ['html', /web page/],
    ['html-as-sse', /web page/],
    ['no-choices', /not a chat completion/],
  ] as const)('%s fails the step at once, named', async (kind, reason) => {
    const m = model(kind);
    const result = await runOne(m);
    expect(result.status).toBe('failed');
    expect(result.failed[0]?.reason).toMatch(reason);
    expect(result.failed[0]?.reason).not.toContain('gave up after');
    expect(posts(m)).toHaveLength(1);
  });

  it('a server that ignores stream: true answers the step, with its usage', async () => {
    const m = model('ignore-stream');
    const result = await runOne(m);
    expect(result.status).toBe('done');
    expect(result.answer).toBe('say something');
    expect(result.steps[0]?.usage).toMatchObject({ completionTokens: 2 });
  });
});
