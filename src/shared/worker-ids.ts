/**
 * Reserved worker ids: `self` is the conductor answering a step itself, `local` the on-device model as a
 * worker of the pool. The plan language (both threads) and the pool (the page) reserve them.
 */
export const SELF_WORKER = 'self';
export const LOCAL_WORKER = 'local';

/** `{ id: label }` for a pool: how both threads name its workers to the user. */
export function labelsOf(pool: ReadonlyArray<{ id: string; label: string }>): Record<string, string> {
  return Object.fromEntries(pool.map((w) => [w.id, w.label]));
}
