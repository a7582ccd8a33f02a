/**
 * Reserved worker ids: `self` is the conductor answering a step itself, `local` the on-device model as a
 * worker of the pool, `run` the code sandbox (it runs the code of the answers its step sees). The plan
 * language (both threads) and the pool (the page) reserve them.
 */
export const SELF_WORKER = 'self';
export const LOCAL_WORKER = 'local';

/** What a message calls a worker of the pool: its label, or its id while the user has not named it. */
export function labelOf(worker: { id: string; label: string }): string {
  return worker.label || worker.id;
}

/** `{ id: label }` for a pool: how both threads name its workers to the user. */
export function labelsOf(pool: ReadonlyArray<{ id: string; label: string }>): Record<string, string> {
  return Object.fromEntries(pool.map((w) => [w.id, w.label]));
}

export const RUN_WORKER = 'run';

/**
 * Whether a worker can answer a question on its own: the code sandbox answers only with the output of the
 * code in the answers its step sees, so a pool of nothing else cannot answer anything.
 */
export function answersAlone(workerId: string): boolean {
  return workerId !== RUN_WORKER;
}

/** Workers that answer on this device: no key, no provider, nothing sent. */
export function onDevice(workerId: string): boolean {
  return workerId === LOCAL_WORKER || workerId === RUN_WORKER;
}
