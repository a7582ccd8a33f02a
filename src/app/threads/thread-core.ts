import { type Signal, signal } from '@preact/signals';
import type { RunHistoryStore } from '../../records/run-store.ts';
import type { ThreadListing, ThreadRecord, ThreadStore, ThreadTurn } from '../../records/thread-store.ts';
import type { HistoryPrefs } from '../history-budget.ts';
import type { AskMode, DirectChoice } from '../runs/run-model.ts';

/** The thread on screen: its earlier turns (the last one is the run on screen) and its branches. */
export interface ThreadState {
  id: string;
  title: string;
  /** The branch's turns before the run on screen, oldest first, as far as paged in. */
  earlier: ThreadTurn[];
  /**
   * The branch's turns after the run on screen, oldest first: a turn opened from History is shown in its
   * place (`at`). Empty when the run on screen is the branch's last.
   */
  later: ThreadTurn[];
  /** The run on screen when it is not the branch's last (opened from History); absent: `leafRunId`. */
  at?: string;
  /** Turns in the branch, the last included, by its number (any missing below included). */
  total: number;
  /** Turns at the branch's start no longer in history, once paging in reached them (ThreadPage.missing). */
  missing?: number;
  /** The branch's last run (the run view shows it, unless `at` names another). */
  leafRunId: string;
  /** Per turn with other branches there: every run at its place, oldest first (ThreadPage.branches). */
  branches: Record<string, string[]>;
  /** The thread's standing instructions (ThreadRecord.instructions): every turn asked here carries them. */
  instructions?: string;
  /**
   * How the last turn here was asked: a follow-up is asked the same way, in Direct mode to the same worker
   * (absent: opened from History).
   */
  asked?: { mode: AskMode; review: boolean; direct?: DirectChoice };
}

export interface ThreadServices {
  threadStore(): Promise<ThreadStore>;
  runStore(): Promise<RunHistoryStore>;
  historyPrefs(): HistoryPrefs;
  /** Called after a thread is renamed, imported or deleted: History's list, if shown, is read again. */
  historyChanged(): Promise<void>;
}

/** What every part of the threads shares: the thread on screen, the list, and the few actions on them. */
export interface ThreadCore {
  services: ThreadServices;
  current: Signal<ThreadState | undefined>;
  /** Why the last follow-up was not sent (a turn still running); cleared by the next one that is. */
  followUpProblem: Signal<string | undefined>;
  listing: Signal<ThreadListing[] | undefined>;
  store(): Promise<ThreadStore>;
  /** Records the branch on screen, so the thread opens there next time. A failed write loses only that. */
  rememberLeaf(threadId: string, title: string, runId: string | undefined): Promise<void>;
  /** After a rename, an import or a delete: the list, if shown, and History's are read again. */
  refreshList(): Promise<void>;
}

export function createThreadCore(services: ThreadServices): ThreadCore {
  const current = signal<ThreadState | undefined>(undefined);
  const followUpProblem = signal<string | undefined>(undefined);
  const listing = signal<ThreadListing[] | undefined>(undefined);

  async function store(): Promise<ThreadStore> {
    return services.threadStore();
  }

  async function rememberLeaf(threadId: string, title: string, runId: string | undefined): Promise<void> {
    if (!runId) return;
    try {
      const threads = await store();
      const now = Date.now();
      const existing = await threads.getThread(threadId);
      const record: ThreadRecord = existing
        ? { ...existing, leafRunId: runId, updatedAt: now }
        : { id: threadId, schema: 1, title, createdAt: now, updatedAt: now, leafRunId: runId };
      await threads.putThread(record);
      const state = current.value;
      if (state?.id === threadId) current.value = { ...state, leafRunId: runId };
    } catch (error) {
      console.warn('The thread could not be updated; its turns are stored all the same.', error);
    }
  }

  async function refreshList(): Promise<void> {
    if (listing.value) listing.value = await (await store()).listThreads();
    await services.historyChanged();
  }

  return { services, current, followUpProblem, listing, store, rememberLeaf, refreshList };
}
