import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { requestSpend, totalsOf } from '../../../src/executor/spend.ts';
import type { StepStatus } from '../../../src/records/run-types.ts';
import {
  currentEstimator,
  estimatePromptTokens,
  estimateTokens,
  loadTokenizer,
} from '../../../src/shared/token-estimate.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const worker: WorkerSpec = workerSpec({
  id: 'w1',
  label: 'Writer',
  baseURL: 'http://127.0.0.1:9/v1',
  model: 'm',
  maxConcurrency: 1,
  price: { inputPerM: 1, outputPerM: 2 },
});

const ANSWER = 'The quick brown fox jumps over the lazy dog, and then it reads the o200k vocabulary.';

function step(requests: StepStatus['requests']): StepStatus {
  return {
    index: 0,
    worker: 'w1',
    task: 't',
    sees: [],
    depth: 0,
    state: 'done',
    text: '',
    timings: {},
    attempts: 1,
    ...(requests ? { requests } : {}),
  };
}

// The order matters: the module holds the tokenizer once loaded, as the page does.
describe('token estimates for a provider that sent no usage', () => {
  it('counts characters / 4 until the tokenizer is loaded, and says so', () => {
    expect(currentEstimator()).toBe('chars');
    expect(estimateTokens('abcdefgh')).toBe(2);
    const spend = requestSpend({
      attempt: 1,
      outcome: 'answered',
      worker,
      messages: [{ role: 'user', content: 'Q?' }],
      answer: ANSWER,
      usage: undefined,
    });
    expect(spend).toMatchObject({ estimated: true, estimator: 'chars' });
  });

  it('counts with the o200k tokenizer once loaded: the same count as gpt-tokenizer itself', async () => {
    expect(await loadTokenizer()).toBe('o200k');
    expect(currentEstimator()).toBe('o200k');
    expect(estimateTokens(ANSWER)).toBe(countTokens(ANSWER));
    expect(estimateTokens(ANSWER)).not.toBe(Math.ceil(ANSWER.length / 4));
    expect(estimateTokens('')).toBe(0);
    // Chat format tokens: 3 per message and 3 for the reply.
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: ANSWER },
    ];
    expect(estimatePromptTokens(messages)).toBe(countTokens('Be brief.') + countTokens(ANSWER) + 9);
  });

  it('counts special-token text in an answer as plain text instead of throwing', () => {
    expect(estimateTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('marks a request estimated by o200k, priced, never zero', () => {
    const spend = requestSpend({
      attempt: 1,
      outcome: 'answered',
      worker,
      messages: [{ role: 'user', content: 'Q?' }],
      answer: ANSWER,
      usage: undefined,
    });
    expect(spend).toMatchObject({
      estimated: true,
      estimator: 'o200k',
      completionTokens: countTokens(ANSWER),
    });
    expect(spend.promptTokens).toBeGreaterThan(0);
    expect(spend.cost).toBeGreaterThan(0);
  });

  it('keeps usage the provider sent as it is, not estimated', () => {
    const spend = requestSpend({
      attempt: 1,
      outcome: 'answered',
      worker,
      messages: [{ role: 'user', content: 'Q?' }],
      answer: ANSWER,
      usage: { promptTokens: 7, completionTokens: 5 },
    });
    expect(spend).toEqual({
      attempt: 1,
      outcome: 'answered',
      promptTokens: 7,
      completionTokens: 5,
      cost: 7e-6 + 10e-6,
    });
  });

  it('names the rougher estimator in run totals when estimates were made both ways', () => {
    const o200k = {
      attempt: 1,
      outcome: 'answered' as const,
      promptTokens: 5,
      completionTokens: 3,
      estimated: true as const,
      estimator: 'o200k' as const,
    };
    const sent = { attempt: 1, outcome: 'answered' as const, promptTokens: 5, completionTokens: 3 };
    expect(totalsOf([step([o200k, sent])])).toMatchObject({ estimated: true, estimator: 'o200k' });
    const chars = { ...o200k, estimator: 'chars' as const };
    expect(totalsOf([step([o200k]), step([chars])])).toMatchObject({ estimated: true, estimator: 'chars' });
    // A record from before the tokenizer: estimated, by characters.
    const old = {
      attempt: 1,
      outcome: 'answered' as const,
      promptTokens: 5,
      completionTokens: 3,
      estimated: true as const,
    };
    expect(totalsOf([step([old])])).toMatchObject({ estimated: true, estimator: 'chars' });
    expect(totalsOf([step([sent])]).estimated).toBeUndefined();
    expect(totalsOf([step([sent])]).estimator).toBeUndefined();
  });
});
