import type { ProviderError } from '../providers/errors.ts';
import type { StepStatus } from '../records/run-types.ts';
import { labelOf } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { type Choice, chooseSubstitute, failoverCause } from './failover.ts';
import type { RunState } from './run-state.ts';
import { totalsOf } from './spend.ts';
import { stepHasImages } from './step-files.ts';

/**
 * Failover within a run: which worker takes a step over from one that stayed unavailable, and the
 * takeover said on the step and written. Which failures and which worker is failover.ts's rule.
 */
export class Takeovers {
  /**
   * Workers that stayed unavailable for a step of this run, with why: no step fails over to them, and a
   * later step of theirs goes to another worker at once when one can take it.
   */
  readonly failedWorkers = new Map<string, { cause: ProviderError; reason: string }>();

  constructor(private readonly run: RunState) {}

  /**
   * After `worker`'s attempts ended with `error`: the worker that takes the step over, or a throw of the
   * error the step fails with: `error` itself when it is no outage or failover is off, else with why no
   * other worker could take over.
   */
  async takeOver(
    status: StepStatus,
    worker: WorkerSpec,
    error: unknown,
    signal: AbortSignal,
  ): Promise<WorkerSpec> {
    const cause = this.run.options.failover && !signal.aborted ? failoverCause(error) : undefined;
    if (!cause) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const failed = /[.!?]$/.test(reason) ? reason : `${reason}.`;
    const name = labelOf(worker);
    if (status.pin) throw new Error(`${failed} The step is pinned to ${name}, so no other worker took over.`);
    this.failedWorkers.set(worker.id, { cause, reason });
    const choice = await this.substituteFor(worker, cause, status.index);
    if (signal.aborted) throw signal.reason;
    if ('none' in choice) throw new Error(`${failed} ${choice.none}`);
    return this.handOver(status, worker, choice.worker, reason);
  }

  /** The best other worker for a step `worker` failed with `cause`, or why there is none. */
  substituteFor(worker: WorkerSpec, cause: ProviderError, index?: number): Promise<Choice> {
    const { options, steps, statuses } = this.run;
    const failover = options.failover ?? {};
    const given = failover.allow;
    // A step with an image can be taken over only by a worker that takes images.
    const step = index !== undefined ? steps[index] : undefined;
    const needsVision = step !== undefined && stepHasImages(step, options.attachments ?? []);
    const allow =
      given || needsVision
        ? (w: WorkerSpec, totals: ReturnType<typeof totalsOf>) =>
            needsVision && w.vision !== true
              ? 'it takes no images, and the step sends one'
              : given?.(w, totals)
        : undefined;
    return chooseSubstitute({
      failed: worker,
      cause,
      pool: options.pool,
      failedInRun: new Set(this.failedWorkers.keys()),
      hasKey: failover.hasKey ?? (async () => true),
      ...(allow ? { allow: (w: WorkerSpec) => allow(w, totalsOf(statuses)) } : {}),
    });
  }

  /** Gives the step to `to`: the takeover is on the step, said and written. */
  handOver(status: StepStatus, from: WorkerSpec, to: WorkerSpec, reason: string): WorkerSpec {
    const takeover = { from: from.id, to: to.id, reason, at: this.run.now() };
    status.takeovers = [...(status.takeovers ?? []), takeover];
    status.worker = to.id;
    status.error = undefined; // the failure is in the takeover now; the substitute starts clean
    this.run.emitStep(status, { type: 'step-takeover', takeover });
    this.run.writeStep(status);
    return to;
  }
}
