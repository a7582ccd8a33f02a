import { type RunSandbox, RunStepTransport } from '../executor/run-step.ts';
import type { ChatTransport } from '../providers/transport.ts';
import { RUN_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/** The code sandbox as a worker (src/executor/run-step.ts). */

const NO_SANDBOX: RunSandbox = () => Promise.reject(new Error('this page has no code sandbox'));

/** `transportFor` with the `run` worker's transport in front: one per run, on the page's one sandbox. */
export function withRunStep(
  transportFor: (worker: WorkerSpec) => ChatTransport,
  sandbox: RunSandbox = NO_SANDBOX,
): (worker: WorkerSpec) => ChatTransport {
  const run = new RunStepTransport(sandbox);
  return (worker) => (worker.id === RUN_WORKER ? run : transportFor(worker));
}
