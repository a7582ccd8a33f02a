import { signal } from '@preact/signals';
import type { RunRecord, StepRecord } from '../../records/runs-db.ts';
import { runningElsewhere, whenReleased } from './run-locks.ts';
import type { RunView } from './run-model.ts';
import type { RunServices } from './run-services.ts';

/** Why the last resume did not start (another tab runs it, or its record cannot be read). */
export interface ResumeProblem {
  runId: string;
  kind: 'elsewhere' | 'failed';
  text: string;
}

/**
 * The runs not finished when the page was last closed, as Ask offers them for resume: which another tab
 * runs now, and which paid answers each lost. `shownHere` gives the ids of the runs this page shows or
 * runs, which are not offered.
 */
export function createUnfinished(
  services: Pick<RunServices, 'runStore' | 'ledger'>,
  shownHere: () => (string | undefined)[],
) {
  const unfinished = signal<RunRecord[]>([]);
  /** Ids of unfinished runs another tab is running now: shown as such, not offered for resume. */
  const unfinishedElsewhere = signal<ReadonlySet<string>>(new Set());
  /**
   * Per unfinished run, its answers that were paid for and lost (a full disk, or the page closed while
   * they streamed): said with the offer to resume, which pays for them again.
   */
  const unfinishedLost = signal<ReadonlyMap<string, string[]>>(new Map());
  const resumeProblem = signal<ResumeProblem | undefined>(undefined);
  const watching = new Set<string>();

  /** Reads the unfinished runs again, and which of them another tab is running. */
  async function refreshUnfinished(): Promise<void> {
    const store = await services.runStore();
    const here = shownHere();
    const open = (await store.findUnfinished()).filter((r) => !here.includes(r.id));
    const elsewhere = await runningElsewhere(open.map((r) => r.id));
    // A run another tab runs has lost nothing: its step in flight is still coming in there.
    unfinishedLost.value = await lostPerRun(open.filter((r) => !elsewhere.has(r.id)));
    unfinished.value = open;
    unfinishedElsewhere.value = elsewhere;
    // "Running in another tab" is old news once that tab has let the run go.
    const problem = resumeProblem.value;
    if (problem?.kind === 'elsewhere' && !elsewhere.has(problem.runId)) resumeProblem.value = undefined;
    // When the other tab's run ends (or the tab closes), read again: the run is done, or resumable here.
    for (const id of elsewhere) {
      if (watching.has(id)) continue;
      watching.add(id);
      whenReleased(id, () => {
        watching.delete(id);
        void refreshUnfinished();
      });
    }
  }

  /** What each of `runs` lost that resuming pays for again, from its stored steps and the ledger. */
  async function lostPerRun(
    runs: readonly Pick<RunRecord, 'id'>[],
    known = new Map<string, readonly StepRecord[]>(),
  ): Promise<Map<string, string[]>> {
    const lost = new Map<string, string[]>();
    if (runs.length === 0) return lost;
    const [{ lostAnswers, lostAnswerNotice, sentPerStep }, store, ledger] = await Promise.all([
      import('../../executor/resume.ts'),
      services.runStore(),
      services.ledger(),
    ]);
    for (const run of runs) {
      const steps = known.get(run.id) ?? (await store.getRun(run.id).catch(() => undefined))?.steps;
      if (!steps) continue;
      const notes = lostAnswers(steps, await sentPerStep(ledger, run.id)).map(lostAnswerNotice);
      if (notes.length > 0) lost.set(run.id, notes);
    }
    return lost;
  }

  /**
   * A stored run no page runs any more, as it is: interrupted, not running (no Cancel), saying why, how to
   * go on, and which paid answers were lost.
   */
  async function interrupted(view: RunView, steps: readonly StepRecord[]): Promise<RunView> {
    const lost = (await lostPerRun([{ id: view.id }], new Map([[view.id, steps]]))).get(view.id) ?? [];
    const error = [
      'This run stopped before it finished: the page was closed or reloaded while it ran. Resume it from ' +
        'Ask, where unfinished runs are offered, or discard it there.',
      ...lost,
    ].join(' ');
    return { ...view, phase: 'interrupted', error };
  }

  return { unfinished, unfinishedElsewhere, unfinishedLost, resumeProblem, refreshUnfinished, interrupted };
}

export type Unfinished = ReturnType<typeof createUnfinished>;
