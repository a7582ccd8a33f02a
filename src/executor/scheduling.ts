import type { StepStatus } from '../records/run-types.ts';
import { type RunState, TERMINAL } from './run-state.ts';

/**
 * The run's progress through its DAG: a step whose inputs failed fails (or is cancelled) with them, a step
 * whose inputs are all done starts, and the run finishes once the plan is complete and every step ended.
 */
export class Scheduler {
  /** Steps begun: a step starts once, whatever its state says while its first request waits. */
  private readonly started = new Set<number>();
  /** Steps whose failure came from upstream: their dependents repeat the same reason. */
  private readonly cascaded = new Set<number>();

  constructor(
    private readonly run: RunState,
    private readonly startStep: (index: number) => void,
  ) {}

  /** Fails steps whose inputs failed, starts every step whose inputs are done, finishes when all ended. */
  schedule(): void {
    const run = this.run;
    if (run.finished) return;
    this.cascadeFailures();
    if (!run.cancelled && !run.spendStop) {
      for (const status of run.statuses) {
        if (status.state !== 'queued' || this.started.has(status.index)) continue;
        if (!(run.deps[status.index] ?? []).every((d) => run.statuses[d]?.state === 'done')) continue;
        if (run.options.sequential) {
          const busy = run.statuses.some((s) => this.started.has(s.index) && !TERMINAL.has(s.state));
          const earlier = run.statuses.some((s) => s.index < status.index && !TERMINAL.has(s.state));
          if (busy || earlier) continue;
        }
        this.started.add(status.index);
        this.startStep(status.index);
        if (run.options.sequential) break;
      }
    }
    const allEnded = run.statuses.every((s) => TERMINAL.has(s.state));
    if (run.planComplete && allEnded) run.finish();
  }

  /** Ends every queued step that reads a failed or cancelled one, until no more do. */
  private cascadeFailures(): void {
    const run = this.run;
    let changed = true;
    while (changed) {
      changed = false;
      for (const status of run.statuses) {
        if (status.state !== 'queued' || this.started.has(status.index)) continue;
        const broken = (run.deps[status.index] ?? []).find((d) => {
          const s = run.statuses[d]?.state;
          return s === 'failed' || s === 'cancelled';
        });
        if (broken === undefined) continue;
        const upstream = run.statuses[broken] as StepStatus;
        const reason = this.cascaded.has(broken)
          ? (upstream.error ?? `step ${broken} did not finish`)
          : upstream.state === 'cancelled'
            ? `step ${broken} was cancelled (cancelled upstream)`
            : `step ${broken} failed: ${upstream.error ?? 'unknown error'}`;
        this.cascaded.add(status.index);
        run.endStep(status.index, upstream.state === 'cancelled' ? 'cancelled' : 'failed', reason);
        changed = true;
      }
    }
  }
}
