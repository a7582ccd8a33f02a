/** The names the run view shows for workers: the user's labels, never bare ids when a label is known. */

import { LOCAL_WORKER, RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';

/** Labels by worker id, as the run's pool gave them. */
export type WorkerLabels = Readonly<Record<string, string>>;

const RESERVED: WorkerLabels = {
  [SELF_WORKER]: 'Conductor (check)',
  [LOCAL_WORKER]: 'On-device model',
  [RUN_WORKER]: 'Code runner',
};

/** The label of `worker`; its id when the pool did not name it (an imported or edited plan may). */
export function workerDisplayName(worker: string, labels: WorkerLabels = {}): string {
  const label = Object.hasOwn(labels, worker) ? labels[worker]?.trim() : undefined;
  return label || (Object.hasOwn(RESERVED, worker) ? RESERVED[worker]! : worker);
}

/** A namer over one pool, for the graph's layout and descriptions. */
export function namerFor(labels: WorkerLabels = {}): (worker: string) => string {
  return (worker) => workerDisplayName(worker, labels);
}
