import { describe, expect, it } from 'vitest';
import { stickyWorker } from '../../../src/app/stickiness.ts';
import type { TurnContext } from '../../../src/app/turn-context.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const worker = (id: string): WorkerSpec =>
  workerSpec({
    id,
    providerId: 'openai',
    baseURL: 'https://api.openai.com/v1',
    model: 'gpt-5-mini',
    maxConcurrency: 1,
  });
const pool = [worker('w1'), worker('w2')];

function thread(lastQuestion: string, lastWorker = 'w2'): TurnContext {
  return {
    link: { threadId: 't', turn: 1, parentRunId: 'r0' },
    history: {
      turns: [{ question: lastQuestion, answer: 'def f(): ...', worker: lastWorker }],
      budgetFor: () => 1000,
    },
  };
}

const never = () => false;

describe('a follow-up in router and auto mode', () => {
  it('goes back to the worker that answered the last turn', () => {
    const input = {
      question: 'Shorter, please.',
      mode: 'router' as const,
      thread: thread('Write a Python function.'),
    };
    expect(stickyWorker(input, pool, never)?.id).toBe('w2');
    expect(stickyWorker({ ...input, mode: 'auto' }, pool, never)?.id).toBe('w2');
    // Same kind (code, then code): still the same worker.
    expect(stickyWorker({ ...input, question: 'Now in Rust.' }, pool, never)?.id).toBe('w2');
  });

  it('does not when the question changes kind, the answer was marked bad, or the worker is gone', () => {
    const base = { mode: 'router' as const, thread: thread('Write a Python function.') };
    expect(stickyWorker({ ...base, question: 'Write a poem about autumn.' }, pool, never)).toBeUndefined();
    expect(stickyWorker({ ...base, question: 'Shorter.' }, pool, (id) => id === 'r0')).toBeUndefined();
    expect(stickyWorker({ ...base, question: 'Shorter.' }, [worker('w1')], never)).toBeUndefined();
  });

  it('never in conductor mode, and not on a first turn', () => {
    const input = { question: 'Shorter.', thread: thread('Write a Python function.') };
    expect(stickyWorker({ ...input, mode: 'conductor' }, pool, never)).toBeUndefined();
    expect(stickyWorker({ question: 'Shorter.', mode: 'router' }, pool, never)).toBeUndefined();
  });
});
