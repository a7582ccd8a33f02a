/**
 * Failover: when a step's worker stays unavailable after its retries, which other worker of the pool takes
 * the step over. Pure choices (no network, no vault): the executor asks `failoverCause` whether an error is
 * worth a takeover and `chooseSubstitute` for the worker, handing in how to know that a worker has a key.
 */

import { ProviderError, type ProviderErrorKind } from '../providers/errors.ts';
import type { RunTotals } from '../records/run-types.ts';
import { LOCAL_WORKER, labelOf, onDevice, RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

export type { Takeover } from '../records/run-types.ts';

/** How a run fails over (ExecutorOptions.failover); a run without it does not. */
export interface FailoverOptions {
  /**
   * Whether a worker can send: a key is saved for its provider at its origin, or its provider needs none.
   * Without it every worker counts as having one.
   */
  hasKey?: (worker: WorkerSpec) => Promise<boolean>;
  /**
   * The run's spend limit's say: a reason to refuse `worker` given what the run has spent so far (it is
   * asked for the best candidate with a key, before any request goes to it), or undefined to let it take
   * over. A limit the executor enforces on every request holds for the substitute's requests too.
   */
  allow?: (worker: WorkerSpec, spent: RunTotals) => string | undefined;
}

/**
 * The failures that say "this worker cannot answer now", not "this request is wrong": 5xx (Anthropic's
 * 529 overloaded included), a network failure or CORS refusal, timeouts and cut streams that outlasted
 * the retries, a rate limit longer than Baton waits, a revoked or missing key (401, 403, egress refusing
 * to send without one), and a region or organisation block (403), or a login page or proxy in the way.
 *
 * Not failed over: 400/422 (the request itself is at fault, and another worker would hide the bug), 404 (a
 * mistyped model or URL is for the user to fix), an empty answer (the provider did answer: a filter or a
 * refusal is the model's answer, and asking elsewhere would hide it), a cancel, and the step's own time
 * limit (its time is spent).
 */
const FAILOVER_KINDS: ReadonlySet<ProviderErrorKind> = new Set<ProviderErrorKind>([
  'server',
  'connection',
  'timeout',
  'stream',
  'rate-limit',
  'auth',
  'forbidden',
  'refused',
  'unexpected-response',
]);

/** Failures where every worker of the same provider at the same origin shares the failed key. */
const KEY_KINDS: ReadonlySet<ProviderErrorKind> = new Set<ProviderErrorKind>([
  'auth',
  'forbidden',
  'refused',
]);

/** The ProviderError behind an error the attempts ended with (it is kept as the `cause`), if any. */
function providerErrorOf(error: unknown): ProviderError | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    if (e instanceof ProviderError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/** The provider failure that makes `error` worth a takeover, or undefined when it is not one. */
export function failoverCause(error: unknown): ProviderError | undefined {
  const cause = providerErrorOf(error);
  return cause && FAILOVER_KINDS.has(cause.kind) ? cause : undefined;
}

export interface SubstituteQuery {
  /** The worker that failed. */
  failed: WorkerSpec;
  /** Why (the error its attempts ended with). */
  cause: ProviderError;
  pool: readonly WorkerSpec[];
  /** Ids of workers that already failed a step in this run: a takeover never goes back to one. */
  failedInRun: ReadonlySet<string>;
}

const TIERS = { low: 0, medium: 1, high: 2 } as const;

function tierOf(worker: WorkerSpec): number {
  return TIERS[worker.costTier ?? 'medium'];
}

function originOf(worker: WorkerSpec): string {
  try {
    return new URL(worker.baseURL).origin;
  } catch {
    return worker.baseURL;
  }
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

/** How alike two workers' strengths read: shared words over all words (0..1; 0 when either is blank). */
export function strengthSimilarity(a: WorkerSpec, b: WorkerSpec): number {
  const left = words(a.strengths);
  const right = words(b.strengths);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * How far a failure reaches: another provider (another origin) is untouched by an outage; the same
 * endpoint with another model is likelier to answer than the same model again.
 */
function distanceClass(failed: WorkerSpec, candidate: WorkerSpec): number {
  if (originOf(candidate) !== originOf(failed)) return 0;
  return candidate.model === failed.model ? 2 : 1;
}

/** Whether a candidate uses the very key that was just refused (same provider, same origin). */
function sharesKey(failed: WorkerSpec, candidate: WorkerSpec): boolean {
  return candidate.providerId === failed.providerId && originOf(candidate) === originOf(failed);
}

export interface Ranking {
  /** Best first. */
  candidates: WorkerSpec[];
  /** Why the workers left out were left out, in the user's words (one entry per reason). */
  excluded: string[];
}

function labels(workers: readonly WorkerSpec[]): string {
  return workers.map(labelOf).join(', ');
}

/**
 * The other workers that could take the step over, best first: another provider before the failed one's
 * endpoint (an outage takes a whole endpoint down), then the closest strengths (the same kind of task),
 * then the nearest cost tier, the cheaper one on a tie, then pool order. Leaves out the conductor
 * (`self`) and the on-device `local` model (it cannot stand in for a cloud model's quality), disabled
 * workers, workers that already failed in this run, and, when the key was refused, workers that send the
 * same key. A step of the `local` model itself has no substitute: it was kept on the device on purpose.
 */
export function rankSubstitutes(query: SubstituteQuery): Ranking {
  const { failed, cause, pool, failedInRun } = query;
  // A step the plan kept on this device is not sent to a cloud provider because the device failed it.
  if (failed.id === LOCAL_WORKER) {
    return { candidates: [], excluded: ['a step of the on-device model stays on this device'] };
  }
  // A cloud model does not run code: the step's answer would be a guess at what the code does.
  if (failed.id === RUN_WORKER) {
    return { candidates: [], excluded: ['a step of the code runner has no substitute'] };
  }
  const alreadyFailed: WorkerSpec[] = [];
  const sameKey: WorkerSpec[] = [];
  const open: WorkerSpec[] = [];
  for (const worker of pool) {
    if (worker.id === failed.id || worker.id === SELF_WORKER || onDevice(worker.id)) continue;
    if (!worker.enabled) continue;
    if (failedInRun.has(worker.id)) alreadyFailed.push(worker);
    else if (KEY_KINDS.has(cause.kind) && sharesKey(failed, worker)) sameKey.push(worker);
    else open.push(worker);
  }
  const excluded: string[] = [];
  if (alreadyFailed.length > 0) excluded.push(`${labels(alreadyFailed)} already failed in this run`);
  if (sameKey.length > 0) excluded.push(`${labels(sameKey)} would send the same key`);
  const order = new Map(pool.map((w, i) => [w.id, i]));
  const score = (w: WorkerSpec) => ({
    distance: distanceClass(failed, w),
    similarity: strengthSimilarity(failed, w),
    tierGap: Math.abs(tierOf(w) - tierOf(failed)),
    tier: tierOf(w),
    order: order.get(w.id) ?? 0,
  });
  const scored = open.map((worker) => ({ worker, ...score(worker) }));
  scored.sort(
    (a, b) =>
      a.distance - b.distance ||
      b.similarity - a.similarity ||
      a.tierGap - b.tierGap ||
      a.tier - b.tier ||
      a.order - b.order,
  );
  return { candidates: scored.map((s) => s.worker), excluded };
}

export interface ChooseOptions extends SubstituteQuery {
  /** Whether a worker can send: its key is saved (or its provider needs none). */
  hasKey: (worker: WorkerSpec) => Promise<boolean>;
  /**
   * Asked last, for the best candidate with a key: a reason to refuse it (the run's spend limit would be
   * passed), or undefined to let it take over.
   */
  allow?: (worker: WorkerSpec) => string | undefined;
}

export type Choice = { worker: WorkerSpec } | { none: string };

/**
 * The best other worker that can take the step over and has a key, or why there is none, in words for
 * the step card: "No other worker could take over: GPT-5 mini has no key saved; Claude Haiku already
 * failed in this run."
 */
export async function chooseSubstitute(options: ChooseOptions): Promise<Choice> {
  const { candidates, excluded } = rankSubstitutes(options);
  const keyless: WorkerSpec[] = [];
  const refused: string[] = [];
  for (const worker of candidates) {
    if (!(await options.hasKey(worker).catch(() => false))) {
      keyless.push(worker);
      continue;
    }
    const refusal = options.allow?.(worker);
    if (refusal === undefined) return { worker };
    refused.push(`${labelOf(worker)}: ${refusal}`);
  }
  const why = [...excluded];
  if (keyless.length > 0)
    why.push(`${labels(keyless)} ${keyless.length === 1 ? 'has' : 'have'} no key saved`);
  why.push(...refused);
  if (why.length === 0) return { none: 'No other worker in the pool could take over.' };
  return { none: `No other worker could take over: ${why.join('; ')}.` };
}
