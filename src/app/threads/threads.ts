/**
 * Threads: Ask starts one, a follow-up adds a turn, an edit or Regenerate makes a branch. Each part is a
 * file of this folder; `createThreads` builds them over one shared core (thread-core.ts) and returns them
 * as the page uses them.
 */
import type { Runs } from '../runs/runs.ts';
import { createThreadAsking } from './asking.ts';
import { createThreadOpening } from './opening.ts';
import { createStoredThreads } from './stored-threads.ts';
import { createThreadCore, type ThreadServices } from './thread-core.ts';

export type Threads = ReturnType<typeof createThreads>;

/** Threads: Ask starts one, a follow-up adds a turn, an edit or Regenerate makes a branch. */
export function createThreads(runs: Runs, services: ThreadServices) {
  const core = createThreadCore(services);
  const asking = createThreadAsking(core, runs);
  const opening = createThreadOpening(core, runs);
  const stored = createStoredThreads(core);
  return {
    current: core.current,
    followUpProblem: core.followUpProblem,
    listing: core.listing,
    startThread: asking.startThread,
    acceptsFollowUp: asking.acceptsFollowUp,
    followUp: asking.followUp,
    branchAt: asking.branchAt,
    regenerate: asking.regenerate,
    openThread: opening.openThread,
    followRun: opening.followRun,
    switchBranch: opening.switchBranch,
    showEarlier: opening.showEarlier,
    newThread: opening.newThread,
    rename: stored.rename,
    setPinned: stored.setPinned,
    setInstructions: stored.setInstructions,
    loadList: stored.loadList,
    deleteThread: stored.deleteThread,
    exportThread: stored.exportThread,
    importThread: stored.importThread,
  };
}
