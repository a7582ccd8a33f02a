import type { WorkerSpec } from '../shared/worker-spec.ts';

/** A FIFO counting semaphore whose waiters can give up. */
export class Semaphore {
  private active = 0;
  private readonly waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  constructor(readonly limit: number) {}

  /** True when `acquire` would wait. */
  get full(): boolean {
    return this.active >= this.limit;
  }

  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next.resolve();
    else this.active--;
  }
}

/** A worker's endpoint: its base URL's origin (or its provider, for a worker without a URL). */
export function endpointOf(worker: Pick<WorkerSpec, 'baseURL' | 'providerId'>): string {
  try {
    return new URL(worker.baseURL).origin;
  } catch {
    // No URL (the on-device worker, or a bad one the transport will report): one limit per provider.
    return `provider:${worker.providerId}`;
  }
}

/**
 * Which limit a worker's requests count against: its provider at its endpoint. Two Custom servers are
 * two limits; two workers of one cloud provider share one, and so does everything sent with one key
 * (a key is bound to one provider at one origin), which is what such a provider limits.
 */
function limitKey(worker: Pick<WorkerSpec, 'baseURL' | 'providerId'>): string {
  return `${worker.providerId} ${endpointOf(worker)}`;
}

/** A concurrency limit must be a whole number of requests, at least 1: NaN or 2.5 would stall or overrun. */
function checkedLimit(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${what} must be a whole number of at least 1; it is ${String(value)}.`);
  }
  return value;
}

/**
 * Validates the pool's and the caller's concurrency limits at once, so a bad one is a clear error before
 * anything runs (instead of steps queued forever behind a NaN, or 3 in flight under 2.5).
 */
export function checkConcurrency(pool: readonly WorkerSpec[], configured: Record<string, number> = {}): void {
  for (const worker of pool)
    checkedLimit(worker.maxConcurrency, `The concurrency of worker "${worker.label}"`);
  for (const [key, value] of Object.entries(configured)) checkedLimit(value, `The concurrency for "${key}"`);
}

/** One semaphore per provider and endpoint (see limitKey), made when a step first needs it. */
export class EndpointLimits {
  private readonly semaphores = new Map<string, Semaphore>();
  constructor(
    private readonly pool: readonly WorkerSpec[],
    /** By endpoint origin, or by provider id (then for each of its endpoints). */
    private readonly configured: Record<string, number> = {},
  ) {
    checkConcurrency(pool, configured);
  }

  for(worker: WorkerSpec): { endpoint: string; semaphore: Semaphore } {
    const endpoint = endpointOf(worker);
    const key = limitKey(worker);
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      const configured = this.configured[endpoint] ?? this.configured[worker.providerId];
      // The strictest worker sharing the limit: its limit is the server's, whichever worker asks.
      const fromPool = Math.min(...this.pool.filter((w) => limitKey(w) === key).map((w) => w.maxConcurrency));
      semaphore = new Semaphore(configured ?? (Number.isFinite(fromPool) ? fromPool : 1));
      this.semaphores.set(key, semaphore);
    }
    return { endpoint, semaphore };
  }
}
