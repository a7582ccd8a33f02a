import { type ReplanContext, replannerFor } from '../../conductor/replanner.ts';
import type { PlanEstimate } from '../../executor/estimate.ts';
import type { RunHandle, RunOptions } from '../../executor/executor.ts';
import { checkPlan, describeFindings } from '../../shared/plan/checks.ts';
import type { PlanMode } from '../../shared/plan/index.ts';
import { type Plan, planLimitsFor, type Step } from '../../shared/plan/index.ts';
import { mayCallTools } from '../../shared/plan/tools.ts';
import { labelsOf, onDevice } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { poolEntries } from '../pool-entries.ts';
import { checkedFiles, keepRunFiles, withAttachments } from '../run-files.ts';
import { conductorOnDemand, executorModule, failoverFor, keylessWorkers, transports } from '../services.ts';
import { turnRunOptions } from '../turn-context.ts';
import { unlockingFirst } from '../vault-unlock.ts';
import { type createRunDrawing, frameCoalescedUpdates } from './draw-timing.ts';
import type { FilesConfirmation } from './files-confirm.ts';
import { withLedgerEstimates } from './ledger-estimates.ts';
import type { PlanNote } from './plan-notes.ts';
import type { RunCore } from './run-core.ts';
import { holdWhileRunning } from './run-locks.ts';
import { declinedText, runSpendLimit, type SpendConfirmation } from './spend-confirm.ts';

type RunDrawing = ReturnType<typeof createRunDrawing>;

/** Starting a run (a plan, or steps as they stream), and tracking the live one. */
export function createRunStarts(
  core: RunCore,
  drawing: RunDrawing,
  spend: SpendConfirmation,
  files: FilesConfirmation,
) {
  const { services } = core;
  const sending = {
    bridge: () => services.bridge(),
    egress: drawing.egress,
    ...(services.codeSandbox ? { codeSandbox: services.codeSandbox.bind(services) } : {}),
  };

  /** What the conductor needs to write corrective steps for a `self` step of a run over `pool`. */
  function replanContext(pool: readonly WorkerSpec[]): ReplanContext {
    const { maxSteps, maxDepth } = services.planPrefs();
    return { pool: poolEntries(pool), maxSteps, maxDepth };
  }

  /**
   * What a started or resumed run of `runId` over `pool` sends through and reports to: transports, the
   * replanner, failover, the spend limit, the tools (unless `tools` is false: no step may call one), and the
   * run view (as the draw policy says, draw-timing.ts).
   */
  async function wiring(
    runId: string,
    pool: readonly WorkerSpec[],
    spendLimitUsd = core.spendLimit(),
    tools = true,
  ) {
    // Reading the tools offered (their store, the vault's tokens) is on the way from Run to the request.
    const [sendTo, failover, toolsFor] = await Promise.all([
      transports(pool, sending),
      failoverFor(services),
      tools ? services.tools?.toolsFor() : undefined,
    ]);
    const transport = unlockingFirst(sendTo, (worker) =>
      services.ensureUnlocked([worker], 'to run your question'),
    );
    const viewUpdates = frameCoalescedUpdates(
      (apply) => core.update(runId, apply),
      undefined,
      (events) => {
        for (const event of events) if ('status' in event) drawing.streams.show(runId, event.status);
      },
    );
    return {
      transport,
      conductor: replannerFor(conductorOnDemand(services), replanContext(pool)),
      ...(failover ? { failover } : {}),
      ...(toolsFor ? { toolsFor } : {}),
      ...(spendLimitUsd !== undefined ? { spendLimitUsd } : {}),
      onEvent: withLedgerEstimates(services.ledger, runId, viewUpdates),
      ...(services.passages ? { passages: services.passages } : {}),
      ...(services.wholeFileTokens ? { wholeFileTokens: services.wholeFileTokens() } : {}),
    } satisfies Partial<RunOptions>;
  }

  /** Makes `run` the live one until it ends; then the history (and the unfinished list) are read again. */
  function track(run: RunHandle): void {
    core.handle = run;
    // Other tabs see this run as running here (a resumed run already holds its lock).
    holdWhileRunning(run.runId, run.result);
    void run.result.then(() => {
      if (core.handle === run) core.handle = undefined;
      void core.refreshHistory();
    });
  }

  /** Shows under the plan, one line each, what the plan checks found and what was done about it. */
  function showChecks(runId: string, lines: string[], steps?: Step[]): void {
    if (lines.length === 0) return;
    core.update(runId, (v) => ({ ...v, planChecks: lines, ...(steps ? { plannedSteps: steps } : {}) }));
  }

  /**
   * Starts a run of `plan` (every step known) or of steps as they stream. `fix`: apply the plan checks'
   * fixes (a plan nobody reviewed); a reviewed plan runs as the user left it.
   */
  async function start(
    runId: string,
    question: string,
    mode: PlanMode,
    plan: Plan | AsyncIterable<Step>,
    pool: WorkerSpec[],
    spendLimitUsd: number | undefined = core.spendLimit(),
    fix = false,
  ): Promise<RunHandle> {
    if ('steps' in plan) {
      // Every step is known: the passphrase is asked for now if a step's worker sends a saved key.
      const used = new Set(plan.steps.map((step) => step.worker));
      const unlocked = await services.ensureUnlocked(
        pool.filter((w) => used.has(w.id)),
        'to run your question',
      );
      // A missing key or a locked vault fails here, naming the worker, before any send.
      const keyless = await keylessWorkers(pool, services);
      const check = checkPlan(plan, {
        workerLabels: labelsOf(pool),
        hasKey: (id) => !keyless.has(id),
        vaultLocked: !unlocked,
        needsVault: (id) => !onDevice(id),
        ...checkedFiles(core.runFiles.get(runId), pool),
      });
      if (check.blocked)
        throw new Error(describeFindings(check.findings.filter((f) => f.blocking)).join(' '));
      if (fix) {
        showChecks(runId, describeFindings(check.findings), check.plan.steps);
        plan = check.plan;
      }
    }
    // Steps still streaming: each step whose worker sends a saved key asks as it is sent (the transport).
    const [{ startRun }, store, wired] = await Promise.all([
      executorModule(),
      services.runStore(),
      // Steps still streaming may yet be granted tools.
      wiring(runId, pool, spendLimitUsd, !('steps' in plan) || mayCallTools(plan.steps)),
    ]);
    const filesNotKept = await keepRunFiles(store, core.runFiles.get(runId));
    if (filesNotKept)
      core.update(runId, (v) => ({ ...v, planChecks: [...(v.planChecks ?? []), filesNotKept] }));
    const prefs = services.planPrefs();
    const chosenBy = core.currentRun.value?.id === runId ? core.currentRun.value.chosenBy : undefined;
    // A turn of a thread: stored with its link, its workers sent the earlier turns.
    const turn = await turnRunOptions(
      core.currentRun.value?.id === runId ? core.currentRun.value.thread : undefined,
      services,
    );
    const run = startRun({
      ...(chosenBy ? { chosenBy } : {}),
      planNote: planNoteOf(runId),
      ...turn,
      maxSteps: planLimitsFor(mode, prefs).maxSteps,
      maxDepth: prefs.maxDepth,
      runId,
      question,
      mode,
      plan,
      pool,
      ...withAttachments(core.runFiles.get(runId)),
      store,
      ...wired,
    });
    track(run);
    return run;
  }

  /**
   * The conductor's note on the run's plan, for its record. A streamed plan's note comes once the plan is
   * written, after the run started; the last one seen is kept when another run comes on screen.
   */
  function planNoteOf(runId: string): () => PlanNote | undefined {
    let note: PlanNote | undefined;
    return () => {
      const view = core.currentRun.value;
      if (view?.id === runId) note = view.planNote;
      return note;
    };
  }

  /** Starts a run, registered with the drawing (draw-timing.ts): the view waits for its first requests. */
  function execute(...args: Parameters<typeof start>): Promise<RunHandle> {
    return drawing.starts(start(...args));
  }

  /**
   * Runs a whole plan nobody reviewed, with the plan checks' fixes: once the user has agreed to a plan
   * estimated over the spend limit, and to where it sends their files (declining either ends the run
   * before anything is sent).
   */
  async function runUnreviewed(
    runId: string,
    question: string,
    mode: PlanMode,
    plan: Plan,
    pool: WorkerSpec[],
    estimate: PlanEstimate,
  ): Promise<void> {
    const limitUsd = core.spendLimit();
    const stop = (error: string) =>
      core.update(runId, (v) => ({ ...v, phase: 'cancelled', error, endedAt: Date.now() }));
    if (!(await spend.approveSpend(runId, estimate, false)))
      return stop(declinedText(estimate, limitUsd ?? 0));
    // Its files go where it sends them only once the user has seen where (files-confirm.ts).
    const keptBack = await files.approvePlan(runId, plan.steps, pool);
    if (keptBack) return stop(keptBack);
    await execute(runId, question, mode, plan, pool, runSpendLimit(estimate.cost, limitUsd), true);
  }

  /** Resolves once no run is starting or running here, and the last one's record is written. */
  async function whenIdle(): Promise<void> {
    while (drawing.starting.size > 0 || core.handle) {
      await Promise.allSettled([...drawing.starting]);
      await core.handle?.result.catch(() => undefined);
    }
  }

  return {
    execute,
    runUnreviewed,
    wiring,
    track,
    showChecks,
    whenIdle,
    withFileConsent: files.withFileConsent,
  };
}

export type RunStarts = ReturnType<typeof createRunStarts>;
