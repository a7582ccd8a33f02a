import { signal } from '@preact/signals';
import type { Attachment } from '../attachments/types.ts';
import type { RunHistoryStore, RunRecord, StepRecord, ThreadLink } from '../executor/store.ts';
import type {
  ThreadListing,
  ThreadPage,
  ThreadRecord,
  ThreadStore,
  ThreadTurn,
} from '../executor/thread-store.ts';
import type { WorkerSpec } from '../pool/types.ts';
import type { HistoryPrefs } from './history-budget.ts';
import { type AskMode, isActive, type RunView } from './runs/run-model.ts';
import type { Runs } from './runs/runs.ts';
import { downloadText } from './save-file.ts';
import { type TurnContext, turnHistory } from './turn-context.ts';

/** Turns a thread shows at a time (from its end); "Show earlier turns" adds as many. */
export const THREAD_PAGE_TURNS = 20;

/** What a follow-up that cannot be sent now says (it is refused, not queued: the user decides what next). */
export const BUSY_FOLLOW_UP =
  'The last turn is still running: wait for its answer, or cancel it, then send your follow-up.';

/** The thread on screen: its earlier turns (the last one is the run on screen) and its branches. */
export interface ThreadState {
  id: string;
  title: string;
  /** The branch's turns before its last, oldest first, as far as paged in. */
  earlier: ThreadTurn[];
  /** Turns in the branch, the last included. */
  total: number;
  /** The branch's last run (the run view shows it). */
  leafRunId: string;
  /** Per turn with other branches there: every run at its place, oldest first (ThreadPage.branches). */
  branches: Record<string, string[]>;
  /** How the last turn here was asked: a follow-up is asked the same way (absent: opened from History). */
  asked?: { mode: AskMode; review: boolean };
}

/** How a follow-up is asked: the mode and review choice of the turn before carry over. */
export interface FollowUpInput {
  question: string;
  mode: AskMode;
  review: boolean;
  /** The files attached to the question. */
  attachments?: readonly Attachment[];
}

export interface ThreadServices {
  threadStore(): Promise<ThreadStore>;
  runStore(): Promise<RunHistoryStore>;
  historyPrefs(): HistoryPrefs;
  /** Called after a thread is renamed, imported or deleted: History's list, if shown, is read again. */
  historyChanged(): Promise<void>;
}

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

export type Threads = ReturnType<typeof createThreads>;

/** Threads: Ask starts one, a follow-up adds a turn, an edit or Regenerate makes a branch. */
export function createThreads(runs: Runs, services: ThreadServices) {
  const current = signal<ThreadState | undefined>(undefined);
  /** Why the last follow-up was not sent (a turn still running); cleared by the next one that is. */
  const followUpProblem = signal<string | undefined>(undefined);
  const listing = signal<ThreadListing[] | undefined>(undefined);

  async function store(): Promise<ThreadStore> {
    return services.threadStore();
  }

  /** Records the branch on screen, so the thread opens there next time. A failed write loses only that. */
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

  /** Asks in the thread at `link` (a new one, a follow-up, a branch) and records the branch on screen. */
  async function askTurn(input: FollowUpInput, pool: WorkerSpec[], turn: TurnContext, title: string) {
    followUpProblem.value = undefined;
    const state = current.value;
    if (state?.id === turn.link.threadId)
      current.value = { ...state, asked: { mode: input.mode, review: input.review } };
    await runs.ask({ ...input, thread: turn }, pool);
    const view = runs.currentRun.value;
    if (view?.thread?.link.threadId === turn.link.threadId)
      await rememberLeaf(turn.link.threadId, title, view.id);
  }

  /** Ask: a new thread, its first turn. */
  async function startThread(
    input: FollowUpInput & { planOnly?: boolean },
    pool: WorkerSpec[],
  ): Promise<void> {
    const threadId = crypto.randomUUID();
    current.value = {
      id: threadId,
      title: input.question,
      earlier: [],
      total: 1,
      leafRunId: '',
      branches: {},
    };
    await askTurn(input, pool, { link: { threadId, turn: 0 } }, input.question);
  }

  /** The turn on screen, when it is the last of the thread on screen. */
  function lastTurn(): { view: RunView; link: ThreadLink; state: ThreadState } | undefined {
    const view = runs.currentRun.value;
    const state = current.value;
    const link = view?.thread?.link;
    if (!view || !state || !link || link.threadId !== state.id) return undefined;
    return { view, link, state };
  }

  /** A turn as the thread lists it, from its run view. */
  function turnFromView(view: RunView, link: ThreadLink): ThreadTurn {
    const turn: ThreadTurn = { id: view.id, turn: link.turn };
    if (link.parentRunId !== undefined) turn.parentRunId = link.parentRunId;
    turn.summary = {
      id: view.id,
      question: view.question,
      mode: view.mode,
      status: view.phase === 'review' ? 'planned' : isActive(view.phase) ? 'running' : 'done',
      createdAt: view.startedAt,
      updatedAt: view.endedAt ?? view.startedAt,
      steps: view.steps.length,
      cost: view.totals?.cost ?? 0,
      ...(view.answer !== undefined ? { answer: view.answer } : {}),
    };
    return turn;
  }

  /**
   * A follow-up under the last answer: a new turn after it, whose planner and workers see the turns
   * before. Empty: nothing happens. While the last turn runs: refused, saying why (`followUpProblem`).
   */
  /** Whether a follow-up would be taken now; when not, the box says why and keeps what was typed. */
  function acceptsFollowUp(): boolean {
    const view = runs.currentRun.value;
    const busy = view !== undefined && (isActive(view.phase) || view.phase === 'review');
    if (busy) followUpProblem.value = BUSY_FOLLOW_UP;
    return !busy;
  }

  async function followUp(input: FollowUpInput, pool: WorkerSpec[]): Promise<void> {
    const question = input.question.trim();
    if (!question) return;
    const last = lastTurn();
    if (!last) return;
    if (isActive(last.view.phase) || last.view.phase === 'review') {
      followUpProblem.value = BUSY_FOLLOW_UP;
      return;
    }
    const link: ThreadLink = { threadId: last.state.id, turn: last.link.turn + 1, parentRunId: last.view.id };
    const history = await turnHistory(await store(), last.view.id, services.historyPrefs);
    current.value = {
      ...last.state,
      earlier: [...last.state.earlier, turnFromView(last.view, last.link)],
      total: link.turn + 1,
    };
    await askTurn({ ...input, question }, pool, { link, ...(history ? { history } : {}) }, last.state.title);
  }

  /**
   * Asks `question` in place of the turn `runId`: a new branch from the turn before it (the old branch is
   * kept, and can be switched back to). Regenerate is this with the last question as it was.
   */
  async function branchAt(runId: string, input: FollowUpInput, pool: WorkerSpec[]): Promise<void> {
    const question = input.question.trim();
    const state = current.value;
    if (!question || !state) return;
    const view = runs.currentRun.value;
    if (view && (isActive(view.phase) || view.phase === 'review')) {
      followUpProblem.value = BUSY_FOLLOW_UP;
      return;
    }
    const at = state.earlier.findIndex((t) => t.id === runId);
    const replaced = at >= 0 ? state.earlier[at] : lastTurn()?.view.id === runId ? lastTurnLink() : undefined;
    if (!replaced) return;
    const link: ThreadLink = { threadId: state.id, turn: replaced.turn };
    if (replaced.parentRunId !== undefined) link.parentRunId = replaced.parentRunId;
    const history = await turnHistory(await store(), replaced.parentRunId, services.historyPrefs);
    const siblings = state.branches[runId] ?? [runId];
    current.value = {
      ...state,
      earlier: at >= 0 ? state.earlier.slice(0, at) : state.earlier,
      total: replaced.turn + 1,
      branches: { ...state.branches },
    };
    await askTurn({ ...input, question }, pool, { link, ...(history ? { history } : {}) }, state.title);
    const newId = runs.currentRun.value?.id;
    const after = current.value;
    if (newId && after?.id === state.id) {
      current.value = { ...after, branches: { ...after.branches, [newId]: [...siblings, newId] } };
    }
  }

  function lastTurnLink(): ThreadTurn | undefined {
    const last = lastTurn();
    return last ? turnFromView(last.view, last.link) : undefined;
  }

  /** Re-asks the last question: same mode, a new plan, a new branch beside the old answer. */
  async function regenerate(input: Omit<FollowUpInput, 'question'>, pool: WorkerSpec[]): Promise<void> {
    const last = lastTurn();
    if (last) await branchAt(last.view.id, { ...input, question: last.view.question }, pool);
  }

  /** Opens a thread at the end of its branch on screen (or of the branch through `runId`). */
  async function openThread(id: string, runId?: string): Promise<string | undefined> {
    const threads = await store();
    const leaf = runId ? await threads.leafUnder(id, runId) : undefined;
    const read = await readThreadEnd(threads, await services.runStore(), id, leaf);
    if (!read) return 'This thread is not in your history.';
    const { page } = read;
    current.value = {
      id,
      title: page.thread.title,
      earlier: [],
      total: page.total,
      leafRunId: page.leafRunId,
      branches: page.branches,
    };
    if (leaf) await rememberLeaf(id, page.thread.title, leaf);
    const missing = await runs.openRun(page.leafRunId);
    // The last turn is on screen: the turns before it follow.
    await fillEarlier(threads, id, page.leafRunId);
    return missing;
  }

  /** Reads the page of turns before the last into the thread on screen (unless it changed meanwhile). */
  async function fillEarlier(threads: ThreadStore, id: string, leafRunId: string): Promise<void> {
    const earlier = await readEarlier(threads, id, leafRunId, leafRunId);
    const state = current.value;
    if (!earlier || state?.id !== id || state.leafRunId !== leafRunId) return;
    current.value = {
      ...state,
      earlier: earlier.turns,
      branches: { ...earlier.branches, ...state.branches },
    };
  }

  /** Shows the thread of the run on screen, when it is a turn of one that is not on screen (a resume). */
  async function followRun(view: RunView | undefined): Promise<void> {
    const threadId = view?.thread?.link.threadId;
    if (!view || !threadId) return;
    const state = current.value;
    if (state?.id === threadId && (state.leafRunId === view.id || state.leafRunId === '')) return;
    const threads = await store();
    const read = await threads.openThread(threadId, { limit: 1, leafRunId: view.id });
    if (!read || runs.currentRun.value?.id !== view.id) return;
    current.value = {
      id: threadId,
      title: read.thread.title,
      earlier: [],
      total: read.total,
      leafRunId: view.id,
      branches: read.branches,
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
    const page = await readEarlier(await store(), state.id, state.leafRunId, first.id);
    if (!page || current.value !== state) return;
    current.value = {
      ...state,
      earlier: [...page.turns, ...state.earlier],
      branches: { ...page.branches, ...state.branches },
    };
  }

  async function rename(id: string, title: string): Promise<void> {
    const trimmed = title.trim();
    if (!trimmed) return;
    const threads = await store();
    const thread = await threads.getThread(id);
    if (!thread) return;
    await threads.putThread({ ...thread, title: trimmed, titleEdited: true, updatedAt: Date.now() });
    if (current.value?.id === id) current.value = { ...current.value, title: trimmed };
    await refreshList();
  }

  async function refreshList(): Promise<void> {
    if (listing.value) listing.value = await (await store()).listThreads();
    await services.historyChanged();
  }

  async function loadList(): Promise<void> {
    listing.value = await (await store()).listThreads();
  }

  async function deleteThread(id: string): Promise<void> {
    await (await store()).deleteThread(id);
    if (current.value?.id === id) current.value = undefined;
    await refreshList();
  }

  /** Every run of the thread with its steps (an unreadable one is left out of the file). */
  async function runsOf(id: string): Promise<{ run: RunRecord; steps: StepRecord[] }[]> {
    const [threads, runStore] = await Promise.all([store(), services.runStore()]);
    const out: { run: RunRecord; steps: StepRecord[] }[] = [];
    for (const runId of await threads.runIds(id)) {
      const stored = await runStore.getRun(runId).catch(() => undefined);
      if (stored) out.push(stored);
    }
    return out;
  }

  /** Exports the whole thread (JSON: every branch) or the branch on screen (Markdown). */
  async function exportThread(kind: 'json' | 'md', id: string): Promise<void> {
    const [m, exports, threads] = await Promise.all([
      import('./thread-export.ts'),
      import('./export.ts'),
      store(),
    ]);
    const thread = await threads.getThread(id);
    if (!thread) return;
    const all = await runsOf(id);
    let text: string;
    if (kind === 'json') text = m.exportThreadJson(thread, all);
    else {
      const page = await threads.openThread(id, { limit: Number.MAX_SAFE_INTEGER });
      const byId = new Map(all.map((r) => [r.run.id, r]));
      const branch = (page?.turns ?? []).flatMap((t) => byId.get(t.id) ?? []);
      text = m.exportThreadMarkdown(thread, branch);
    }
    const name = exports.exportFilename({ id, question: thread.title }, kind).replace(/^run-/, 'thread-');
    downloadText(name, text, kind === 'json' ? 'application/json' : 'text/markdown');
  }

  /**
   * Stores an exported thread: every run not already in the history (same id), and the thread record.
   * An unknown schema version, a damaged run or turns that do not hold together refuse the whole file.
   */
  async function importThread(
    text: string,
  ): Promise<{ ok: true; id: string; added: number } | { ok: false; error: string }> {
    const { parseThreadImport } = await import('./thread-export.ts');
    const parsed = parseThreadImport(text);
    if (!parsed.ok) return parsed;
    const [threads, runStore] = await Promise.all([store(), services.runStore()]);
    let added = 0;
    for (const { run, steps } of parsed.data.runs) {
      const existing = await runStore.getRun(run.id).catch(async () => {
        await runStore.deleteRun(run.id); // damaged: the file's copy replaces it
        return undefined;
      });
      if (existing) continue;
      await runStore.putRun(run);
      for (const step of steps) await runStore.putStep(step);
      added++;
    }
    const existing = await threads.getThread(parsed.data.thread.id);
    if (!existing || added > 0) await threads.putThread({ ...parsed.data.thread, updatedAt: Date.now() });
    await refreshList();
    return { ok: true, id: parsed.data.thread.id, added };
  }

  return {
    current,
    followUpProblem,
    listing,
    startThread,
    acceptsFollowUp,
    followUp,
    branchAt,
    regenerate,
    openThread,
    followRun,
    switchBranch,
    showEarlier,
    rename,
    loadList,
    deleteThread,
    exportThread,
    importThread,
  };
}
