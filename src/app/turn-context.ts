import type { TurnHistory } from '../executor/turn-history.ts';
import type { ThreadLink } from '../records/runs-db.ts';
import type { PastTurn, ThreadStore } from '../records/thread-store.ts';
import type { ConversationTurn } from '../shared/conductor-api.ts';
import { truncateMiddle } from '../shared/truncate-middle.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { type HistoryPrefs, historyBudget } from './history-budget.ts';

/**
 * What a run needs to be a turn of a thread: where it goes (its link, stored with it) and the earlier
 * turns (sent to its workers within their budgets, and shown compactly to the planner). The run code
 * (src/app/runs/) calls these helpers at its few call sites; the thread's own actions are in threads/.
 */
export interface TurnContext {
  link: ThreadLink;
  /** The earlier turns and each worker's budget; absent until read (a stored run opened from History). */
  history?: TurnHistory;
}

/** Earlier turns the planner is handed (it shows fewer: workers/prompt/conversation.ts has the budget). */
const PLANNER_TURNS = 8;
/** Characters of one earlier answer handed to the planner's thread: it shows far less, cut in the middle. */
const PLANNER_ANSWER_CHARS = 1_000;

/** The earlier turns before a turn that follows `parentRunId`, with budgets under `prefs`. */
export async function turnHistory(
  threads: Pick<ThreadStore, 'pastTurns'>,
  parentRunId: string | undefined,
  prefs: () => HistoryPrefs,
): Promise<TurnHistory | undefined> {
  if (parentRunId === undefined) return undefined;
  const turns = await threads.pastTurns(parentRunId);
  return historyWith(turns, prefs);
}

/** `turns` with each worker's budget read from the settings when the step is sent. */
export function historyWith(turns: readonly PastTurn[], prefs: () => HistoryPrefs): TurnHistory {
  return { turns, budgetFor: (worker: WorkerSpec) => historyBudget(worker, prefs()) };
}

/** The run view's share of a turn: its thread (nothing for a run that is not one). */
export function turnView(turn: TurnContext | undefined): { thread?: TurnContext } {
  return turn ? { thread: turn } : {};
}

/** An estimate's share: the history each step will carry. */
export function turnEstimate(turn: TurnContext | undefined): { history?: TurnHistory } {
  return turn?.history ? { history: turn.history } : {};
}

/** The plan request's share: the conversation so far, for the planner's compact view of it. */
export function conversationOf(turn: TurnContext | undefined): { conversation?: ConversationTurn[] } {
  const turns = turn?.history?.turns ?? [];
  if (turns.length === 0) return {};
  return {
    conversation: turns.slice(-PLANNER_TURNS).map((t) => {
      const entry: ConversationTurn = { question: t.question };
      if (t.answer !== undefined) entry.answer = truncateMiddle(t.answer, PLANNER_ANSWER_CHARS);
      return entry;
    }),
  };
}

/**
 * The executor's share: the run's link, and its earlier turns (read from the thread when the view does
 * not hold them: a planned follow-up opened from History, a resume).
 */
export async function turnRunOptions(
  turn: TurnContext | undefined,
  readHistory: ((link: ThreadLink) => Promise<TurnHistory | undefined>) | undefined,
): Promise<{ thread?: ThreadLink; history?: TurnHistory }> {
  if (!turn) return {};
  const history = turn.history ?? (await readHistory?.(turn.link).catch(() => undefined));
  return { thread: turn.link, ...(history ? { history } : {}) };
}
