import type { TurnHistory } from '../executor/turn-history.ts';
import { rankTurns, type TurnRanking } from '../executor/turn-relevance.ts';
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
  /** The thread's standing instructions when the turn was asked; absent: none, or not read yet. */
  instructions?: string;
}

/** Earlier turns the planner is handed (it shows fewer: workers/prompt/conversation.ts has the budget). */
const PLANNER_TURNS = 8;
/** Characters of one earlier answer handed to the planner's thread: it shows far less, cut in the middle. */
const PLANNER_ANSWER_CHARS = 1_000;

/**
 * The earlier turns before a turn that follows `parentRunId`, with budgets under `prefs`; ranked for
 * `question` when it is known, as the run will rank them, so the estimate counts the turns that will go.
 */
export async function turnHistory(
  threads: Pick<ThreadStore, 'pastTurns'>,
  parentRunId: string | undefined,
  prefs: () => HistoryPrefs,
  question?: string,
): Promise<TurnHistory | undefined> {
  if (parentRunId === undefined) return undefined;
  const turns = await threads.pastTurns(parentRunId);
  // A ranking that fails leaves the estimate newest-first; the run ranks again itself.
  const ranking =
    question === undefined ? undefined : await rankTurns(turns, question).catch(() => undefined);
  return historyWith(turns, prefs, ranking);
}

/** `turns` with each worker's budget read from the settings when the step is sent. */
export function historyWith(
  turns: readonly PastTurn[],
  prefs: () => HistoryPrefs,
  ranking?: TurnRanking,
): TurnHistory {
  return {
    turns,
    budgetFor: (worker: WorkerSpec) => historyBudget(worker, prefs()),
    ...(ranking ? { ranking } : {}),
  };
}

/** The run view's share of a turn: its thread (nothing for a run that is not one). */
export function turnView(turn: TurnContext | undefined): { thread?: TurnContext } {
  return turn ? { thread: turn } : {};
}

/** An estimate's share: the history and the instructions each step will carry. */
export function turnEstimate(turn: TurnContext | undefined): {
  history?: TurnHistory;
  instructions?: string;
} {
  return { ...(turn?.history ? { history: turn.history } : {}), ...instructionsOf(turn) };
}

function instructionsOf(turn: TurnContext | undefined): { instructions?: string } {
  return turn?.instructions ? { instructions: turn.instructions } : {};
}

/**
 * The plan request's share: the conversation so far, for the planner's compact view of it, and the
 * thread's instructions (the planner shows one short line of them: workers/prompt/instructions.ts).
 */
export function conversationOf(turn: TurnContext | undefined): {
  conversation?: ConversationTurn[];
  instructions?: string;
} {
  const turns = turn?.history?.turns ?? [];
  if (turns.length === 0) return instructionsOf(turn);
  return {
    ...instructionsOf(turn),
    conversation: turns.slice(-PLANNER_TURNS).map((t) => {
      const entry: ConversationTurn = { question: t.question };
      if (t.answer !== undefined) entry.answer = truncateMiddle(t.answer, PLANNER_ANSWER_CHARS);
      return entry;
    }),
  };
}

/** How the executor's share is read from the thread when the view does not hold it. */
export interface TurnReads {
  turnHistory?(link: ThreadLink): Promise<TurnHistory | undefined>;
  threadInstructions?(link: ThreadLink): Promise<string | undefined>;
}

/**
 * The executor's share: the run's link, its earlier turns and the thread's instructions (read from the
 * thread when the view does not hold them: a planned follow-up opened from History, a resume).
 */
export async function turnRunOptions(
  turn: TurnContext | undefined,
  reads: TurnReads,
): Promise<{ thread?: ThreadLink; history?: TurnHistory; instructions?: string }> {
  if (!turn) return {};
  // Both at once: this is on the way from Run to the first request.
  const [history, instructions] = await Promise.all([
    turn.history ?? reads.turnHistory?.(turn.link).catch(() => undefined),
    turn.instructions ?? reads.threadInstructions?.(turn.link).catch(() => undefined),
  ]);
  return { thread: turn.link, ...(history ? { history } : {}), ...(instructions ? { instructions } : {}) };
}

/** The instructions of the thread a turn at `link` belongs to, as stored now. */
export async function threadInstructions(
  threads: Pick<ThreadStore, 'getThread'>,
  link: ThreadLink,
): Promise<string | undefined> {
  return (await threads.getThread(link.threadId))?.instructions || undefined;
}
