import { RUN_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/**
 * The code sandbox as a worker: a step given to it runs the code of the answers it sees on this device
 * (src/executor/run-step.ts) and answers with what happened. No key, no network, no tokens.
 */
export function codeRunnerWorker(): WorkerSpec {
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

/** How long the code may run. */
export const RUN_TIME_LIMIT_MS = 10_000;
