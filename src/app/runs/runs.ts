/**
 * The runs: what is on screen, what waits for review or resume, and every action on a run. Each part is a
 * file of this folder; `createRuns` builds them over one shared core (run-core.ts) and returns them as the
 * page uses them.
 */
import type { AttachmentRef } from '../../records/runs-db.ts';
import type { Step } from '../../shared/plan/index.ts';
import { createHistoryActions } from '../history.ts';
import { fileOfRun } from '../run-files.ts';
import { createAsking } from './asking.ts';
import { createRunDrawing } from './draw-timing.ts';
import { createFilesConfirm } from './files-confirm.ts';
import { createPlanning } from './planning.ts';
import { createResuming } from './resuming.ts';
import { createReview } from './review.ts';
import { previewStepFiles } from './review-files.ts';
import { createRunCore } from './run-core.ts';
import type { RunServices } from './run-services.ts';
import { createSpendConfirm } from './spend-confirm.ts';
import { createRunStarts } from './starting.ts';
import { createUnfinished } from './unfinished.ts';

export type Runs = ReturnType<typeof createRuns>;

/** The runs' state (what is on screen, what waits for review or resume) and every action on a run. */
export function createRuns(services: RunServices) {
  const core = createRunCore(services, () => unfinished.refreshUnfinished());
  // A run on screen is not offered for resume, unless it is shown interrupted: that one is resumed from the offer.
  const unfinished = createUnfinished(services, () => [
    core.handle?.runId,
    core.currentRun.value?.phase === 'interrupted' ? undefined : core.currentRun.value?.id,
  ]);
  const drawing = createRunDrawing(core.currentRun, services.egress);
  const spend = createSpendConfirm(core);
  const files = createFilesConfirm(core);
  const starts = createRunStarts(core, drawing, spend, files);
  const review = createReview(core, spend, starts);
  const planning = createPlanning(core, spend, starts, review);
  const { ask } = createAsking(core, spend, starts, review, planning);
  const { openRun, resume, rerunStep, continueAnswer } = createResuming(core, starts, review, unfinished);
  const history = createHistoryActions({
    runStore: services.runStore,
    forget: (id) => {
      if (core.currentRun.value?.id === id) core.currentRun.value = undefined;
    },
    refreshHistory: core.refreshHistory,
  });

  function cancelRun(): void {
    spend.settleConfirm(false, false);
    files.settleConfirm(false, false);
    core.planAbort?.abort();
    core.handle?.cancel();
  }

  function cancelStep(index: number): void {
    core.handle?.cancelStep(index);
  }

  return {
    /** The files a run started here was asked with. */
    filesOf: core.runFiles.get,
    /** One file of run `runId` (whose files are `refs`), by content hash, from this page or the run store. */
    fileOf: (runId: string, refs: readonly AttachmentRef[] | undefined, id: string) =>
      fileOfRun(core.runFiles.get(runId), refs, services.runStore, id),
    currentRun: core.currentRun,
    drawnRun: drawing.drawnRun,
    streams: drawing.streams,
    pendingReview: core.pendingReview,
    spendConfirm: spend.spendConfirm,
    confirmSpend: spend.confirmSpend,
    filesConfirm: files.filesConfirm,
    confirmFiles: files.confirmFiles,
    resumeProblem: unfinished.resumeProblem,
    unfinished: unfinished.unfinished,
    unfinishedElsewhere: unfinished.unfinishedElsewhere,
    unfinishedLost: unfinished.unfinishedLost,
    ask,
    whenIdle: starts.whenIdle,
    runReviewed: review.runReviewed,
    /** What a step of the plan in review would send of each file of run `runId`. */
    previewFiles: (runId: string, step: Pick<Step, 'files' | 'task'>, index: number) =>
      previewStepFiles(step, index, core.runFiles.get(runId), {
        ...(services.passages ? { library: services.passages } : {}),
        ...(services.wholeFileTokens ? { wholeFileTokens: services.wholeFileTokens() } : {}),
        question: core.currentRun.value?.question ?? '',
      }),
    discardReview: review.discardReview,
    cancelRun,
    cancelStep,
    openRun,
    resume,
    rerunStep,
    continueAnswer,
    refreshUnfinished: unfinished.refreshUnfinished,
    refreshHistory: core.refreshHistory,
    discardUnfinished: history.discardUnfinished,
    deleteRun: history.deleteRun,
    importRun: history.importRun,
    exportCurrent: history.exportCurrent,
  };
}
