import { ProviderError } from '../providers/errors.ts';

export interface RetryPolicy {
  /** Attempts per step, the first included (default 3). */
  maxAttempts: number;
  /** Backoff ceiling for the first retry; doubles per retry (default 500 ms). */
  baseDelayMs: number;
  /** Backoff ceiling never exceeds this (default 8 s). */
  maxDelayMs: number;
  /** Longest Retry-After we wait out; a longer one fails the step at once (default 30 s). */
  maxRetryAfterMs: number;
  /** Injectable for tests. */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type RetryDecision =
  | { retry: true; delayMs: number; reason: string }
  | { retry: false; reason: string };

/** Resolves after `ms`, or rejects with a ProviderError of kind `aborted` as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => new ProviderError('aborted', 'Cancelled while waiting to retry.');
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 30_000,
  random: Math.random,
  sleep: abortableSleep,
};

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...overrides };
}

/** Exponential backoff with full jitter: uniform in [0, min(maxDelay, base * 2^(attempt-1))). */
export function backoffDelay(attempt: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(policy.random() * ceiling);
}

/**
 * Whether to try again after attempt number `attempt` (1-based) failed with `error`.
 * Retries 408, 409, 429, 5xx, connection failures, cut streams and first-token timeouts; never 400,
 * 401, 403, 404 or a cancel. Honours Retry-After up to `maxRetryAfterMs`; beyond it, gives up with a
 * message saying how long the provider asked to wait instead of hanging.
 */
export function decideRetry(error: unknown, attempt: number, policy: RetryPolicy): RetryDecision {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ProviderError) || !error.retryable) return { retry: false, reason: message };
  // Some failures deserve fewer attempts than the policy allows (an empty answer: one retry).
  const maxAttempts = Math.min(policy.maxAttempts, error.maxAttempts ?? policy.maxAttempts);
  if (attempt >= maxAttempts) {
    const tries = maxAttempts === 1 ? '1 attempt' : `${maxAttempts} attempts`;
    return { retry: false, reason: `${message} (gave up after ${tries})` };
  }
  if (error.retryAfterMs !== undefined) {
    if (error.retryAfterMs > policy.maxRetryAfterMs) {
      const seconds = Math.ceil(error.retryAfterMs / 1000);
      const wait =
        error.kind === 'rate-limit' ? `Rate limited for ${seconds} s` : `Asked to wait ${seconds} s`;
      return {
        retry: false,
        reason: `${wait}, longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s Baton waits: ${message}`,
      };
    }
    return { retry: true, delayMs: error.retryAfterMs, reason: message };
  }
  return { retry: true, delayMs: backoffDelay(attempt, policy), reason: message };
}
