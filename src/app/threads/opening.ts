import type { RunHistoryStore } from '../../records/run-store.ts';
import type { RunRecord, StepRecord } from '../../records/runs-db.ts';
import type { ThreadPage, ThreadStore } from '../../records/thread-store.ts';
import { holdsThePage, type RunView } from '../runs/run-model.ts';
import type { Runs } from '../runs/runs.ts';
import type { ThreadCore, ThreadState } from './thread-core.ts';

/** Turns a thread shows at a time (from its end); "Show earlier turns" adds as many. */
export const THREAD_PAGE_TURNS = 20;

/**
 * What showing a thread's last turn reads: the thread, its branch's last turn and that turn's whole run.
 * The same few reads for a 200-turn thread as for a 2-turn one; the earlier turns are read after it is
 * on screen (`readEarlier`), a page at a time.
 */
export async function readThreadEnd(
  threads: Pick<ThreadStore, 'openThread'>,
  runs: Pick<RunHistoryStore, 'getRun'>,
  id: string,
  leafRunId?: string,
): Promise<{ page: ThreadPage; last: { run: RunRecord; steps: StepRecord[] } | undefined } | undefined> {
  const page = await threads.openThread(id, { limit: 1, ...(leafRunId ? { leafRunId } : {}) });
  if (!page) return undefined;
  const last = await runs.getRun(page.leafRunId).catch(() => undefined);
  return { page, last };
}

/** The page of turns before `before` in the branch ending at `leafRunId`. */
function readEarlier(threads: ThreadStore, id: string, leafRunId: string, before: string) {
  return threads.openThread(id, { limit: THREAD_PAGE_TURNS, leafRunId, before });
}

/** The turns a page found gone at the branch's start, for the thread on screen to say (none: nothing). */
function missingOf(page: ThreadPage): Pick<ThreadState, 'missing'> {
  return page.missing === undefined ? {} : { missing: page.missing };
}

/** The thread's instructions, for the thread on screen (none: nothing). */
function instructionsOf(page: ThreadPage): Pick<ThreadState, 'instructions'> {
  return page.thread.instructions ? { instructions: page.thread.instructions } : {};
}

/** A thread on screen: opened from History, followed from a resumed run, another branch, earlier turns. */
export function createThreadOpening(core: ThreadCore, runs: Runs) {
  const { current, services } = core;

  /** Opens a thread at the end of its branch on screen (or of the branch through `runId`). */
  async function openThread(id: string, runId?: string): Promise<string | undefined> {
    const threads = await core.store();
    const leaf = runId ? await threads.leafUnder(id, runId) : undefined;
    const read = await readThreadEnd(threads, await services.runStore(), id, leaf);
    if (!read) return 'This thread is not in your history.';
    const { page } = read;
    current.value = {
      id,
      title: page.thread.title,
      earlier: [],
      later: [],
      total: page.total,
      leafRunId: page.leafRunId,
      branches: page.branches,
      ...instructionsOf(page),
    };
    if (leaf) await core.rememberLeaf(id, page.thread.title, leaf);
    const missing = await runs.openRun(page.leafRunId);
    // The last turn is on screen: the turns before it follow.
    await fillEarlier(threads, id, page.leafRunId);
    return missing;
  }

  /** Reads the page of turns before `runId` into the thread on screen (unless it changed meanwhile). */
  async function fillEarlier(threads: ThreadStore, id: string, runId: string): Promise<void> {
    const earlier = await readEarlier(threads, id, runId, runId);
    const state = current.value;
    if (!earlier || state?.id !== id || (state.at ?? state.leafRunId) !== runId) return;
    current.value = {
      ...state,
      earlier: earlier.turns,
      branches: { ...earlier.branches, ...state.branches },
      ...missingOf(earlier),
    };
  }

  /**
   * Shows the thread of the run on screen, when it is a turn of one that is not on screen (a resume).
   * `inPlace` (a turn opened from History): the run is shown where it stands in its branch, the newest
   * through it, with the turns before it and after it.
   */
  async function followRun(view: RunView | undefined, inPlace = false): Promise<void> {
    const threadId = view?.thread?.link.threadId;
    if (!view || !threadId) return;
    const state = current.value;
    const shown = state && (state.at ?? state.leafRunId);
    if (state?.id === threadId && (shown === view.id || (!inPlace && shown === ''))) return;
    const threads = await core.store();
    const leaf = inPlace ? await threads.leafUnder(threadId, view.id) : view.id;
    const read = await threads.openThread(threadId, { limit: 1, leafRunId: leaf });
    if (!read || runs.currentRun.value?.id !== view.id) return;
    const after = read.total - 1 - view.thread!.link.turn;
    // The run itself too: its branches are read with the later turns'.
    const later =
      after > 0 ? await threads.openThread(threadId, { limit: after + 1, leafRunId: leaf }) : undefined;
    if (runs.currentRun.value?.id !== view.id) return;
    current.value = {
      id: threadId,
      title: read.thread.title,
      earlier: [],
      later: later?.turns.filter((t) => t.id !== view.id) ?? [],
      ...(leaf !== view.id ? { at: view.id } : {}),
      total: read.total,
      leafRunId: leaf,
      branches: { ...later?.branches, ...read.branches },
      ...instructionsOf(read),
    };
    await fillEarlier(threads, threadId, view.id);
  }

  /** Switches to another branch at a turn: the newest branch through `runId`, shown at its end. */
  async function switchBranch(runId: string): Promise<string | undefined> {
    const state = current.value;
    if (!state) return undefined;
    return openThread(state.id, runId);
  }

  /** Adds the page of turns before the earliest shown. */
  async function showEarlier(): Promise<void> {
    const state = current.value;
    const first = state?.earlier[0];
    if (!state || !first) return;
    const page = await readEarlier(await core.store(), state.id, state.leafRunId, first.id);
    if (!page || current.value !== state) return;
    current.value = {
      ...state,
      earlier: [...page.turns, ...state.earlier],
      branches: { ...page.branches, ...state.branches },
      ...missingOf(page),
    };
  }

  /**
   * A new thread (Ctrl+Shift+O): the Ask box under no turn. A run still going or waiting for its review
   * holds the page instead (it is not dropped); false then.
   */
  function newThread(): boolean {
    const view = runs.currentRun.value;
    if (view && holdsThePage(view)) return false;
    runs.currentRun.value = undefined;
    current.value = undefined;
    return true;
  }

  return { openThread, followRun, switchBranch, showEarlier, newThread };
}
