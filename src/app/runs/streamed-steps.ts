import type { PlanEstimate } from '../../executor/estimate.ts';
import { checkPlan } from '../../shared/plan/checks.ts';
import type { Plan, Step } from '../../shared/plan/index.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import { keylessWorkers } from '../services.ts';
import { PlanFeed } from './plan-feed.ts';
import type { Planning } from './planning-state.ts';
import type { RunCore } from './run-core.ts';
import type { SpendConfirmation } from './spend-confirm.ts';
import type { RunStarts } from './starting.ts';

/**
 * A plan run without review: its steps sent to the executor as the conductor writes them, and what happens
 * once it is written; or, when they cannot stream, the whole plan run once written.
 */
export function createStreamedSteps(core: RunCore, spend: SpendConfirmation, starts: RunStarts) {
  const { services } = core;

  /** The whole plan, run once it is written (no step started while it was). */
  function runWhole(p: Planning, plan: Plan, estimate: PlanEstimate): Promise<void> {
    return starts.runUnreviewed(p.runId, p.input.question, p.input.mode, plan, p.enabled, estimate);
  }

  /**
   * Steps stream to the executor as they are written, unless a worker of the pool has no key: then the
   * whole plan is awaited and checked, so a step for that worker fails the run before anything is sent.
   */
  async function streamSteps(p: Planning, estimateOf: (steps: readonly Step[]) => PlanEstimate) {
    const review = p.input.review || p.input.planOnly === true;
    p.hold = !review && (await keylessWorkers(p.enabled, services).catch(() => new Set<string>())).size > 0;
    if (review || p.hold) return;
    const feed = new PlanFeed();
    p.feed = feed;
    const { runId, input } = p;
    p.streamed = starts.execute(
      runId,
      input.question,
      input.mode,
      starts.withFileConsent(spend.withinSpendLimit(feed.steps, runId, estimateOf), runId, p.enabled),
      p.enabled,
    );
    p.streamed.catch((error: unknown) => {
      p.abort.abort();
      core.failRun(runId, error);
    });
  }

  /** The plan is written and its steps streamed: what the checks find is shown, or the run starts anew. */
  async function finishStream(
    p: Planning,
    feed: PlanFeed,
    plan: Plan,
    estimate: PlanEstimate,
  ): Promise<void> {
    const outcome = feed.finish(plan);
    if (outcome.kind === 'streamed') {
      // Streamed steps started as they were written: what the checks find is shown, not undone.
      const { findings } = checkPlan(plan, { workerLabels: labelsOf(p.enabled) });
      const lines = findings.map(
        (f) => `${f.message} It ran as planned: steps start while the plan is being written.`,
      );
      starts.showChecks(p.runId, lines);
    }
    if (outcome.kind === 'restart') {
      // What streamed is not the plan's beginning: drop that run, start one from the final plan.
      console.warn(`Restarting the run from the final plan: ${outcome.reason}`);
      core.handle?.abandon();
      const store = await services.runStore();
      await store.deleteRun(p.runId);
      const oldId = p.runId;
      const runId = crypto.randomUUID();
      core.runFiles.set(runId, core.runFiles.get(oldId));
      p.runId = runId;
      core.update(oldId, (v) => ({ ...v, id: runId, steps: [], phase: 'running' }));
      await runWhole(p, plan, estimate);
    }
  }

  return { runWhole, streamSteps, finishStream };
}
