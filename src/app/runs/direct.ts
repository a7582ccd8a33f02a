import { singleStrategy } from '../../learning/outcome.ts';
import { ProviderError } from '../../providers/errors.ts';
import type { ChosenBy } from '../../records/runs-db.ts';
import { answersAlone, labelOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { DirectChoice } from './run-model.ts';

/** Who answers a question asked in Direct mode, and how the run says so; or why nobody can. */
export type DirectPick = { worker: WorkerSpec; chosenBy: ChosenBy; pinned: boolean } | { error: string };

/**
 * Direct mode: the question goes to the worker the user chose, as a one-step plan made on the page (the
 * conductor is not asked). The step is pinned to it unless the user let another worker answer: then a
 * worker with no key saved is replaced before anything is sent, and an outage mid-run fails over as any
 * step does. A worker that cannot answer is named, with what to do.
 */
export async function pickDirect(
  choice: DirectChoice | undefined,
  pool: readonly WorkerSpec[],
  keyless: () => Promise<ReadonlySet<string>>,
): Promise<DirectPick> {
  if (!choice) return { error: 'Direct mode: choose the worker to talk to first.' };
  const chosen = pool.find((w) => w.id === choice.worker);
  if (!chosen) {
    return { error: 'The worker chosen for Direct mode is no longer in your pool: choose another one.' };
  }
  const name = labelOf(chosen);
  if (!chosen.enabled) {
    return { error: `${name} is turned off in your pool: turn it on in Settings, or choose another worker.` };
  }
  if (!answersAlone(chosen.id)) {
    return { error: `${name} only runs code other steps wrote: choose a worker that answers questions.` };
  }
  const by = (worker: WorkerSpec, reason: string, pinned: boolean): DirectPick => ({
    worker,
    chosenBy: { by: 'user', strategy: singleStrategy(worker.id), reason },
    pinned,
  });
  const failover = choice.failover === true;
  const missing = await keyless();
  if (!missing.has(chosen.id)) return by(chosen, '', !failover);
  const noKey = `${name} has no API key saved`;
  if (!failover) {
    return {
      error: `${noKey}: add one in Settings, or let another worker answer when it cannot (Direct mode).`,
    };
  }
  // Failover's rule is loaded only when a chosen worker cannot answer (not first-load JS).
  const { chooseSubstitute } = await import('../../executor/failover.ts');
  const substitute = await chooseSubstitute({
    failed: chosen,
    cause: new ProviderError('auth', noKey),
    pool: pool.filter((w) => w.enabled && answersAlone(w.id)),
    failedInRun: new Set(),
    hasKey: async (w) => !missing.has(w.id),
  });
  if ('none' in substitute) return { error: `${noKey}. ${substitute.none}` };
  return by(substitute.worker, `${noKey}: ${labelOf(substitute.worker)} answered instead.`, false);
}
