import { type RunSandbox, RunStepTransport } from '../executor/run-step.ts';
import { RUN_WORKER, type WorkerSpec } from '../pool/types.ts';
import type { ChatTransport } from '../providers/transport.ts';

/**
 * The code sandbox as a worker: a step given to it runs the code of the answers it sees on this device
 * (src/executor/run-step.ts) and answers with what happened. No key, no network, no tokens.
 */
export function runWorker(): WorkerSpec {
  return {
    id: RUN_WORKER,
    label: 'Code runner',
    strengths:
      'runs the Python or JavaScript code of the steps it sees; answers with the output or the error',
    providerId: 'run-device',
    baseURL: '',
    model: 'sandbox',
    maxConcurrency: 1,
    price: { inputPerM: 0, outputPerM: 0 },
    enabled: true,
  };
}

const NO_SANDBOX: RunSandbox = () => Promise.reject(new Error('this page has no code sandbox'));

/** `transportFor` with the `run` worker's transport in front: one per run, on the page's one sandbox. */
export function withRunStep(
  transportFor: (worker: WorkerSpec) => ChatTransport,
  sandbox: RunSandbox = NO_SANDBOX,
): (worker: WorkerSpec) => ChatTransport {
  const run = new RunStepTransport(sandbox);
  return (worker) => (worker.id === RUN_WORKER ? run : transportFor(worker));
}
