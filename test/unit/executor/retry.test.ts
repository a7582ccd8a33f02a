import { describe, expect, it } from 'vitest';
import { abortableSleep, backoffDelay, decideRetry, retryPolicy } from '../../../src/executor/retry.ts';
import { errorFromStatus, ProviderError } from '../../../src/providers/errors.ts';

const headers = (h: Record<string, string>) => new Headers(h);

describe('retry policy', () => {
  const policy = retryPolicy({ random: () => 0.5, baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: 3 });

  it.each([400, 401, 403, 404])('never retries %i', (status) => {
    const decision = decideRetry(errorFromStatus(status, 'nope'), 1, policy);
    expect(decision.retry).toBe(false);
    expect(decision.reason).toContain(String(status));
  });

  it.each([408, 409, 429, 500, 502, 503])('retries %i with backoff', (status) => {
    expect(decideRetry(errorFromStatus(status, ''), 1, policy)).toMatchObject({ retry: true, delayMs: 50 });
  });

  it.each(['connection', 'stream', 'timeout'] as const)('retries kind %s', (kind) => {
    expect(decideRetry(new ProviderError(kind, 'x'), 1, policy).retry).toBe(true);
  });

  it('does not retry a cancel or a non-provider error', () => {
    expect(decideRetry(new ProviderError('aborted', 'x'), 1, policy).retry).toBe(false);
    expect(decideRetry(new Error('bug'), 1, policy)).toEqual({ retry: false, reason: 'bug' });
  });

  it('stops after maxAttempts and says so', () => {
    const decision = decideRetry(errorFromStatus(500, 'boom'), 3, policy);
    expect(decision).toEqual({
      retry: false,
      reason: 'Provider error (500): boom (gave up after 3 attempts)',
    });
  });

  it('honours Retry-After when within the cap', () => {
    const error = errorFromStatus(429, '', headers({ 'retry-after': '2' }));
    expect(decideRetry(error, 1, policy)).toMatchObject({ retry: true, delayMs: 2000 });
    const ms = errorFromStatus(503, '', headers({ 'retry-after-ms': '1234' }));
    expect(decideRetry(ms, 2, policy)).toMatchObject({ retry: true, delayMs: 1234 });
  });

  it('fails at once with a clear message when Retry-After exceeds the cap', () => {
    const error = errorFromStatus(429, 'slow down', headers({ 'retry-after': '120' }));
    const decision = decideRetry(error, 1, retryPolicy({ maxRetryAfterMs: 30_000 }));
    expect(decision.retry).toBe(false);
    expect(decision.reason).toMatch(/^Rate limited for 120 s, longer than the 30 s Baton waits/);
  });

  it('says "asked to wait" for a long Retry-After on a non-429', () => {
    const error = errorFromStatus(503, 'busy', headers({ 'retry-after': '45' }));
    expect(decideRetry(error, 1, policy).reason).toMatch(
      /^Asked to wait 45 s, longer than the 30 s Baton waits/,
    );
  });

  it('backs off exponentially with full jitter, capped', () => {
    const top = retryPolicy({ random: () => 0.999999, baseDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, top))).toEqual([99, 199, 399, 799, 999]);
    const bottom = retryPolicy({ random: () => 0, baseDelayMs: 100, maxDelayMs: 1000 });
    expect(backoffDelay(3, bottom)).toBe(0);
  });

  it('abortableSleep resolves after the delay and rejects promptly on abort', async () => {
    await expect(abortableSleep(5)).resolves.toBeUndefined();
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ kind: 'aborted' });
    await expect(abortableSleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(ProviderError);
  });
});
