import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_TASKS } from '../../../src/evaluation/sample-tasks.ts';
import { scoreAnswer } from '../../../src/evaluation/score.ts';
import { runStrategy } from '../../../src/evaluation/strategies.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A multiple-choice task is scored by letter, so the worker must be shown the lettered options.
const prime = SAMPLE_TASKS.find((t) => t.kind === 'choice' && t.choices?.includes('29'))!;
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: 'reader',
        // Answers only when the options are in the question it was sent.
        behaviour: {
          kind: 'table',
          answers: { [`${prime.question}\n\nA) 21\nB) 27\nC) 29\nD) 33`]: 'Answer: C' },
          fallback: 'Which options?',
        },
      },
    ],
  });
});
afterAll(() => provider.close());

describe('multiple-choice questions', () => {
  it('reach the worker with their lettered options', async () => {
    const pool: WorkerSpec[] = [
      {
        id: 'r',
        label: 'Reader',
        strengths: '',
        providerId: 'custom',
        baseURL: provider.baseURL,
        model: 'reader',
        maxConcurrency: 1,
        enabled: true,
      },
    ];
    const run = await runStrategy({ kind: 'single', worker: 'r' }, prime, {
      pool,
      transport: createOpenAITransport({ fetch: directFetch }),
      signal: new AbortController().signal,
    });
    expect(run.answer).toBe('Answer: C');
    expect((await scoreAnswer(prime, run.answer!)).correct).toBe(true);
  });
});
