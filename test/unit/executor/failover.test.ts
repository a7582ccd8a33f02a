import { describe, expect, it } from 'vitest';
import {
  chooseSubstitute,
  failoverCause,
  rankSubstitutes,
  type SubstituteQuery,
  strengthSimilarity,
} from '../../../src/executor/failover.ts';
import { EmptyAnswerError, errorFromStatus, ProviderError } from '../../../src/providers/errors.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

function worker(id: string, extra: Partial<WorkerSpec> = {}): WorkerSpec {
  return workerSpec({
    id,
    label: `Label ${id}`,
    providerId: 'openai',
    baseURL: 'https://api.openai.com/v1',
    model: `model-${id}`,
    maxConcurrency: 1,
    ...extra,
  });
}

const outage = errorFromStatus(503, 'overloaded');

function query(
  failed: WorkerSpec,
  pool: WorkerSpec[],
  extra: Partial<SubstituteQuery> = {},
): SubstituteQuery {
  return { failed, cause: outage, pool, failedInRun: new Set([failed.id]), ...extra };
}

const ids = (workers: readonly WorkerSpec[]) => workers.map((w) => w.id);

describe('failoverCause', () => {
  it('takes outages, network failures, refused keys and blocks; not bad requests, 404s, empty answers or cancels', () => {
    for (const status of [500, 502, 503, 529, 401, 403, 408, 429]) {
      expect(failoverCause(errorFromStatus(status, ''))?.status, String(status)).toBe(status);
    }
    expect(failoverCause(new ProviderError('connection', 'Failed to fetch'))?.kind).toBe('connection');
    expect(failoverCause(new ProviderError('refused', 'No key saved'))?.kind).toBe('refused');
    expect(failoverCause(errorFromStatus(400, 'bad'))).toBeUndefined();
    expect(failoverCause(errorFromStatus(422, 'extra_forbidden'))).toBeUndefined();
    expect(failoverCause(errorFromStatus(404, 'no such model'))).toBeUndefined();
    expect(failoverCause(new EmptyAnswerError('empty'))).toBeUndefined();
    expect(failoverCause(new ProviderError('aborted', 'Cancelled'))).toBeUndefined();
    expect(failoverCause(new Error('step timeout'))).toBeUndefined();
  });

  it('finds the provider error kept as the cause of the error the retries gave up with', () => {
    const gaveUp = new Error('Provider error (503) (gave up after 3 attempts)', { cause: outage });
    expect(failoverCause(gaveUp)).toBe(outage);
  });
});

describe('rankSubstitutes', () => {
  it('leaves out self, local, disabled workers and those already failed in the run', () => {
    const a = worker('a');
    const pool = [
      a,
      worker('self'),
      worker('local'),
      worker('off', { enabled: false }),
      worker('gone'),
      worker('ok'),
    ];
    const ranking = rankSubstitutes(query(a, pool, { failedInRun: new Set(['a', 'gone']) }));
    expect(ids(ranking.candidates)).toEqual(['ok']);
    expect(ranking.excluded).toEqual(['Label gone already failed in this run']);
  });

  it('keeps a step of the on-device model on the device', () => {
    const local = worker('local', { providerId: 'local', baseURL: 'http://127.0.0.1/none' });
    const ranking = rankSubstitutes(query(local, [local, worker('b')]));
    expect(ranking).toEqual({
      candidates: [],
      excluded: ['a step of the on-device model stays on this device'],
    });
  });

  it('puts another provider first, then another model at the same endpoint, the same model last', () => {
    const a = worker('a', { model: 'gpt' });
    const sameModel = worker('twin', { model: 'gpt' });
    const sameEndpoint = worker('sibling', { model: 'other' });
    const elsewhere = worker('far', { providerId: 'mistral', baseURL: 'https://api.mistral.ai/v1' });
    const ranking = rankSubstitutes(query(a, [a, sameModel, sameEndpoint, elsewhere]));
    expect(ids(ranking.candidates)).toEqual(['far', 'sibling', 'twin']);
  });

  it('prefers the closest strengths, then the nearest cost tier, the cheaper on a tie, then pool order', () => {
    const a = worker('a', { strengths: 'strong at code and math proofs', costTier: 'medium' });
    const coder = worker('coder', { strengths: 'good at code and math', costTier: 'high' });
    const writer = worker('writer', { strengths: 'fluent prose, summaries', costTier: 'medium' });
    const cheap = worker('cheap', { strengths: 'fluent prose, summaries', costTier: 'low' });
    const dear = worker('dear', { strengths: 'fluent prose, summaries', costTier: 'high' });
    const ranking = rankSubstitutes(query(a, [a, dear, cheap, writer, coder]));
    expect(ids(ranking.candidates)).toEqual(['coder', 'writer', 'cheap', 'dear']);
  });

  it('after a refused key, skips workers that would send the same key', () => {
    const a = worker('a');
    const sameKey = worker('b');
    const otherProvider = worker('c', { providerId: 'groq', baseURL: 'https://api.groq.com/openai/v1' });
    const ranking = rankSubstitutes(
      query(a, [a, sameKey, otherProvider], { cause: errorFromStatus(401, '') }),
    );
    expect(ids(ranking.candidates)).toEqual(['c']);
    expect(ranking.excluded).toEqual(['Label b would send the same key']);
    // An outage is not the key's fault: the same provider's other model may answer.
    expect(ids(rankSubstitutes(query(a, [a, sameKey, otherProvider])).candidates)).toEqual(['c', 'b']);
  });
});

describe('strengthSimilarity', () => {
  it('is shared words over all words, and 0 when either side says nothing', () => {
    expect(
      strengthSimilarity(worker('x', { strengths: 'code math' }), worker('y', { strengths: 'Code, math!' })),
    ).toBe(1);
    expect(
      strengthSimilarity(worker('x', { strengths: 'code math' }), worker('y', { strengths: 'code prose' })),
    ).toBeCloseTo(1 / 3);
    expect(strengthSimilarity(worker('x', { strengths: '' }), worker('y', { strengths: 'code' }))).toBe(0);
  });
});

describe('chooseSubstitute', () => {
  it('takes the best candidate that has a key', async () => {
    const a = worker('a');
    const pool = [a, worker('b'), worker('c')];
    const choice = await chooseSubstitute({ ...query(a, pool), hasKey: async (w) => w.id === 'c' });
    expect(choice).toEqual({ worker: pool[2] });
  });

  it('says why none could take over: no key, already failed, refused by the spend limit', async () => {
    const a = worker('a');
    const pool = [a, worker('b'), worker('c'), worker('d')];
    const choice = await chooseSubstitute({
      ...query(a, pool, { failedInRun: new Set(['a', 'b']) }),
      hasKey: async (w) => w.id === 'd',
      allow: () => 'the run would pass its $0.10 spend limit',
    });
    expect(choice).toEqual({
      none:
        'No other worker could take over: Label b already failed in this run; Label c has no key saved; ' +
        'Label d: the run would pass its $0.10 spend limit.',
    });
  });

  it('counts a key check that fails as no key, and says so when the pool has no one else', async () => {
    const a = worker('a');
    const choice = await chooseSubstitute({
      ...query(a, [a, worker('b')]),
      hasKey: async () => {
        throw new Error('vault locked');
      },
    });
    expect(choice).toEqual({ none: 'No other worker could take over: Label b has no key saved.' });
    expect(await chooseSubstitute({ ...query(a, [a, worker('local')]), hasKey: async () => true })).toEqual({
      none: 'No other worker in the pool could take over.',
    });
  });
});
