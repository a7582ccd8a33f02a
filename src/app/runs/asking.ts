import { singleStrategy, singleWorkerOf } from '../../learning/outcome.ts';
import type { ChosenBy } from '../../records/runs-db.ts';
import type { Plan, PlanMode } from '../../shared/plan/index.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { allFiles, viewFiles } from '../run-files.ts';
import { keylessWorkers } from '../services.ts';
import { SAME_WORKER_REASON, stickyWorker } from '../stickiness.ts';
import { turnView } from '../turn-context.ts';
import { pickDirect } from './direct.ts';
import type { PlanningActions } from './planning.ts';
import type { Review } from './review.ts';
import type { RunCore } from './run-core.ts';
import { estimateRun } from './run-estimate.ts';
import { type AskInput, newRunView } from './run-model.ts';
import type { SpendConfirmation } from './spend-confirm.ts';
import type { RunStarts } from './starting.ts';

/** Asking a question: in the mode the user picked, or the one auto mode picks. */
export function createAsking(
  core: RunCore,
  spend: SpendConfirmation,
  starts: RunStarts,
  review: Review,
  planning: PlanningActions,
) {
  const { services, currentRun } = core;

  /** Auto mode's pick for the question, or undefined once the run on screen says why it could not pick. */
  async function autoChoice(
    runId: string,
    input: AskInput,
    enabled: WorkerSpec[],
  ): Promise<ChosenBy | undefined> {
    const { question } = input;
    // A follow-up in router or auto mode goes back to the last turn's worker (src/app/stickiness.ts).
    const sticky = stickyWorker(input, enabled, (id) => services.markedBad?.(id) ?? false);
    if (sticky) {
      const by = input.mode === 'auto' ? 'auto' : 'thread';
      return { by, strategy: singleStrategy(sticky.id), reason: SAME_WORKER_REASON };
    }
    try {
      if (!services.chooseStrategy) throw new Error('Auto mode is not available on this page.');
      const keyless = await keylessWorkers(enabled, services).catch(() => new Set<string>());
      const choice = await services.chooseStrategy(question, enabled, keyless);
      return { by: 'auto', strategy: choice.strategy, reason: choice.reason };
    } catch (error) {
      failBefore(runId, input, `Auto mode could not choose: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** A question that could not be sent to anyone: the run on screen says why. */
  function failBefore(runId: string, input: AskInput, error: string): void {
    currentRun.value = {
      ...newRunView(runId, input.question, input.mode === 'direct' ? 'router' : 'conductor'),
      ...turnView(input.thread),
      phase: 'failed',
      error,
      endedAt: Date.now(),
    };
  }

  /** Direct mode: the question goes to the worker the user chose (direct.ts), no planning at all. */
  async function askDirect(input: AskInput, pool: WorkerSpec[]): Promise<void> {
    const runId = crypto.randomUUID();
    const enabled = pool.filter((w) => w.enabled);
    const pick = await pickDirect(input.direct, pool, () =>
      keylessWorkers(enabled, services).catch(() => new Set<string>()),
    );
    if ('error' in pick) return failBefore(runId, input, pick.error);
    return askOne(runId, input, pick.worker, enabled, pick.chosenBy, pick.pinned);
  }

  /** Sends the question straight to one worker, as a one-step plan made here: the planner does not run. */
  async function askOne(
    runId: string,
    input: AskInput,
    worker: WorkerSpec,
    enabled: WorkerSpec[],
    chosenBy: ChosenBy,
    pinned = false,
  ) {
    spend.settleConfirm(false, false);
    core.pendingReview.value = undefined;
    core.planAbort?.abort();
    // Pinned (Direct mode, no failover allowed): the step never goes to another worker.
    const plan: Plan = {
      steps: [
        {
          worker: worker.id,
          task: 'Answer the question.',
          sees: [],
          ...allFiles(input),
          ...(pinned ? { pin: true as const } : {}),
        },
      ],
    };
    core.runFiles.set(runId, input.attachments);
    const pastLengths = await core.answerLengths();
    const estimate = estimateRun({
      question: input.question,
      steps: plan.steps,
      pool: enabled,
      answerLengths: pastLengths,
      turn: input.thread,
      files: core.runFiles.get(runId),
    });
    currentRun.value = {
      ...newRunView(runId, input.question, 'router'),
      ...turnView(input.thread),
      ...viewFiles(input.attachments ?? []),
      workerOrder: enabled.map((w) => w.id),
      workerLabels: labelsOf(enabled),
      plannedSteps: plan.steps,
      estimate,
      planStats: { tokens: 0 },
      chosenBy,
    };
    if (input.review || input.planOnly) {
      const planOnly = input.planOnly === true;
      await review.awaitReview(runId, {
        plan,
        pool: enabled,
        mode: 'router',
        planOnly,
        lengths: pastLengths,
      });
      return;
    }
    await starts
      .runUnreviewed(runId, input.question, 'router', plan, enabled, estimate)
      .catch((error: unknown) => core.failRun(runId, error));
  }

  /**
   * Asks the question in the mode the user picked; in auto mode, the strategy auto mode picks. A pick of one
   * worker sends the question straight to it as a one-step plan made here: the on-device planner does not
   * run (no planning tokens, and no conductor model needed). Direct mode is that, with the user's worker.
   */
  async function ask(input: AskInput, pool: WorkerSpec[]): Promise<void> {
    if (input.mode === 'direct') return askDirect(input, pool);
    const enabled = pool.filter((w) => w.enabled);
    const sticks = stickyWorker(input, enabled, (id) => services.markedBad?.(id) ?? false);
    if (input.mode !== 'auto' && !sticks) return planning.askPlanned({ ...input, mode: input.mode }, pool);
    const runId = crypto.randomUUID();
    const chosenBy = await autoChoice(runId, input, enabled);
    if (!chosenBy) return;
    const { strategy } = chosenBy;
    const single = singleWorkerOf(strategy);
    const worker = single !== undefined ? enabled.find((w) => w.id === single) : undefined;
    if (worker) return askOne(runId, input, worker, enabled, chosenBy);
    const mode: PlanMode = strategy === 'router' ? 'router' : 'conductor';
    return planning.askPlanned({ ...input, mode }, pool, chosenBy);
  }

  return { ask };
}
