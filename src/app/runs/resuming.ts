import type { RunHandle } from '../../executor/executor.ts';
import type { RunStore } from '../../records/run-store.ts';
import type { RunRecord, StepRecord } from '../../records/runs-db.ts';
import { executorModule } from '../services.ts';
import { turnRunOptions } from '../turn-context.ts';
import type { Review } from './review.ts';
import type { RunCore } from './run-core.ts';
import { runExclusively, runningElsewhere } from './run-locks.ts';
import { enterReview } from './run-model.ts';
import type { RunStarts } from './starting.ts';
import { viewFromRecord } from './stored-view.ts';
import type { Unfinished } from './unfinished.ts';

/** Stored runs brought back: opened (shown, or back in review), resumed after a reload, or one step rerun. */
export function createResuming(core: RunCore, starts: RunStarts, review: Review, unfinished: Unfinished) {
  const { services, currentRun } = core;
  const { resumeProblem } = unfinished;

  /**
   * Shows a stored run. Resolves to undefined when it is shown, else to what to tell the user: it is not in
   * the history, or its record is damaged (and why).
   */
  async function openRun(id: string): Promise<string | undefined> {
    if (currentRun.value?.id === id) return undefined;
    const store = await services.runStore();
    try {
      const stored = await store.getRun(id);
      if (!stored) return 'This run is not in your history.';
      const view = viewFromRecord(stored.run, stored.steps);
      // Attached files: back in memory, to run a stored plan with them or to export them.
      if (stored.run.attachments) core.runFiles.set(id, await store.getAttachments(stored.run.attachments));
      if (stored.run.status !== 'planned') {
        const stopped =
          stored.run.status === 'running' &&
          core.handle?.runId !== id &&
          !(await runningElsewhere([id])).has(id);
        currentRun.value = stopped ? await unfinished.interrupted(view, stored.steps) : view;
        return undefined;
      }
      // A plan not run yet goes back to review, its run timed from here, as the record the executor writes
      // is: the time since it was planned is not the run's, and an imported plan's times are another
      // device's (`updatedAt` the import's), so the review set aside from them missed the gap.
      const now = Date.now();
      currentRun.value = enterReview({ ...view, startedAt: now }, now);
      const { run } = stored;
      await review.showReview(id, {
        plan: run.plan,
        pool: run.pool,
        mode: view.mode,
        planOnly: run.planOnly === true,
      });
      return undefined;
    } catch (error) {
      return `This run cannot be shown: ${(error as Error).message}`;
    }
  }

  /** Resumes a stored run (after a reload): done steps keep their answers, the others run again. */
  async function resume(id: string): Promise<void> {
    resumeProblem.value = undefined;
    try {
      const pool = (await (await services.runStore()).getRun(id))?.run.pool;
      // Declined: nothing changes, and the run stays offered for resume.
      if (pool && !(await services.ensureUnlocked(pool, 'to resume this run'))) return;
      const started = await runExclusively(id, () => resumeHere(id));
      if (!started) {
        resumeProblem.value = {
          runId: id,
          kind: 'elsewhere',
          text: 'This run is running in another tab: it was not started again here.',
        };
        await unfinished.refreshUnfinished();
      }
    } catch (error) {
      resumeProblem.value = {
        runId: id,
        kind: 'failed',
        text: `The run could not be resumed: ${(error as Error).message}`,
      };
    }
  }

  async function resumeHere(id: string): Promise<RunHandle> {
    const [{ resumeRun }, store, ledger] = await Promise.all([
      executorModule(),
      services.runStore(),
      services.ledger(),
    ]);
    const stored = await store.getRun(id);
    if (!stored) throw new Error('it is no longer in your history.');
    currentRun.value = {
      ...viewFromRecord(stored.run, stored.steps),
      phase: 'running',
      endedAt: undefined,
      resumedAt: Date.now(),
    };
    const run = await resumeRun({
      maxDepth: services.planPrefs().maxDepth,
      store,
      runId: id,
      // Steps whose paid answer was lost are told apart by what the ledger saw leave.
      ledger,
      ...(await starts.wiring(id, stored.run.pool)),
      // A turn of a thread: its workers get the earlier turns again.
      ...(await turnRunOptions(viewFromRecord(stored.run, []).thread, services)),
    });
    starts.track(run);
    return run;
  }

  /** Marks the stored run on screen for `reset` (after the passphrase, if needed), then resumes it. */
  async function restart(
    why: string,
    reset: (store: RunStore, stored: { run: RunRecord; steps: StepRecord[] }) => Promise<void>,
  ): Promise<void> {
    const view = currentRun.value;
    if (!view || core.handle) return;
    const store = await services.runStore();
    const stored = await store.getRun(view.id);
    if (!stored) return;
    if (!(await services.ensureUnlocked(stored.run.pool, why))) return;
    await reset(store, stored);
    await resume(view.id);
  }

  /** Reruns one step and every step that depends on it (the executor's `resetForRerun`), then resumes the run. */
  async function rerunStep(index: number): Promise<void> {
    await restart('to run this step again', async (store, stored) => {
      const { resetForRerun } = await import('../../executor/resume.ts');
      await resetForRerun(store, stored, index);
    });
  }

  /**
   * Asks step `index`'s worker for the rest of the answer its provider cut at the output limit, appended to
   * it (src/executor/continuation.ts); the steps that read it run again with the whole answer.
   */
  async function continueAnswer(index: number): Promise<void> {
    await restart('to continue this answer', async (store, stored) => {
      const { resetForContinue } = await import('../../executor/continuation.ts');
      await resetForContinue(store, stored, index);
    });
  }

  return { openRun, resume, rerunStep, continueAnswer };
}
