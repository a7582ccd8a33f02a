import type { PlanEstimate } from '../../executor/estimate.ts';
import type { RunHandle } from '../../executor/executor.ts';
import type { ChosenBy } from '../../records/runs-db.ts';
import type { PlanMode, Step } from '../../shared/plan/index.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { viewFiles } from '../run-files.ts';
import { turnView } from '../turn-context.ts';
import type { PlanFeed } from './plan-feed.ts';
import type { RunCore } from './run-core.ts';
import { type AskInput, newRunView } from './run-model.ts';
import type { SpendConfirmation } from './spend-confirm.ts';

/** One planning under way: its run, the pool it plans for, and how what it plans is run. */
export interface Planning {
  /** The run's id; a new one when what streamed is dropped and the final plan runs anew. */
  runId: string;
  /** The question, in a mode that plans (auto mode has picked one). */
  input: AskInput<PlanMode>;
  enabled: WorkerSpec[];
  chosenBy?: ChosenBy;
  abort: AbortController;
  estimateOf?: (steps: readonly Step[]) => PlanEstimate;
  /** Set when steps stream to the executor as they are written (no review, every key saved). */
  feed?: PlanFeed;
  /** The run the streamed steps started, if they did: a failed plan's record is written after it ends. */
  streamed?: Promise<RunHandle>;
  /** The whole plan is awaited and checked before anything is sent (a worker of the pool has no key). */
  hold: boolean;
  /** The steps that stood when the thread last restarted: a fallback's own step comes after them. */
  keptAtFallback: number;
}

/** A new question: what was open (a confirm, a review, a planning) gives way to its run on screen. */
export function beginPlanning(
  core: RunCore,
  spend: SpendConfirmation,
  input: AskInput<PlanMode>,
  pool: WorkerSpec[],
  chosenBy?: ChosenBy,
): Planning {
  const enabled = pool.filter((w) => w.enabled);
  spend.settleConfirm(false, false);
  const runId = crypto.randomUUID();
  core.runFiles.set(runId, input.attachments);
  core.currentRun.value = {
    ...newRunView(runId, input.question, input.mode),
    ...turnView(input.thread),
    ...viewFiles(input.attachments ?? []),
    workerOrder: enabled.map((w) => w.id),
    workerLabels: labelsOf(enabled),
    ...(chosenBy ? { chosenBy } : {}),
  };
  core.pendingReview.value = undefined;
  core.planAbort?.abort();
  const abort = new AbortController();
  core.planAbort = abort;
  return {
    runId,
    input,
    enabled,
    abort,
    hold: false,
    keptAtFallback: 0,
    ...(chosenBy ? { chosenBy } : {}),
  };
}
