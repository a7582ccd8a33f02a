import type { ThreadLink } from '../../records/runs-db.ts';
import type { ThreadTurn } from '../../records/thread-store.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { type AskInput, holdsThePage, isActive, type RunView } from '../runs/run-model.ts';
import type { Runs } from '../runs/runs.ts';
import { type TurnContext, turnHistory } from '../turn-context.ts';
import type { ThreadCore, ThreadState } from './thread-core.ts';

/** What a follow-up that cannot be sent now says (it is refused, not queued: the user decides what next). */
export const BUSY_FOLLOW_UP =
  'The last turn is still running: wait for its answer, or cancel it, then send your follow-up.';

/** A turn that is still planned, reviewed or running: no new turn is asked beside it. */
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

/** Asking in a thread: Ask starts one, a follow-up adds a turn, an edit or Regenerate makes a branch. */
export function createThreadAsking(core: ThreadCore, runs: Runs) {
  const { current, followUpProblem, services } = core;

  /** Asks in the thread at `link` (a new one, a follow-up, a branch) and records the branch on screen. */
  async function askTurn(input: AskInput, pool: WorkerSpec[], turn: TurnContext, title: string) {
    followUpProblem.value = undefined;
    const state = current.value;
    if (state?.id === turn.link.threadId) {
      const direct = input.mode === 'direct' && input.direct ? { direct: input.direct } : {};
      current.value = { ...state, asked: { mode: input.mode, review: input.review, ...direct } };
      if (state.instructions) turn.instructions = state.instructions;
    }
    const { keptKey, ...asked } = input;
    if (keptKey) turn.link.keptKey = true;
    await runs.ask({ ...asked, thread: turn }, pool);
    const view = runs.currentRun.value;
    if (view?.thread?.link.threadId === turn.link.threadId)
      await core.rememberLeaf(turn.link.threadId, title, view.id);
  }

  /** Ask: a new thread, its first turn. */
  async function startThread(input: AskInput, pool: WorkerSpec[]): Promise<void> {
    const threadId = crypto.randomUUID();
    current.value = {
      id: threadId,
      title: input.question,
      earlier: [],
      later: [],
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

  /** Whether a follow-up would be taken now; when not, the box says why and keeps what was typed. */
  function acceptsFollowUp(): boolean {
    const view = runs.currentRun.value;
    const refused = view !== undefined && holdsThePage(view);
    if (refused) followUpProblem.value = BUSY_FOLLOW_UP;
    return !refused;
  }

  /**
   * A follow-up under the last answer: a new turn after it, whose planner and workers see the turns
   * before. Empty: nothing happens. While the last turn runs: refused, saying why (`followUpProblem`).
   */
  async function followUp(input: AskInput, pool: WorkerSpec[]): Promise<void> {
    const question = input.question.trim();
    if (!question) return;
    const last = lastTurn();
    if (!last) return;
    if (holdsThePage(last.view)) {
      followUpProblem.value = BUSY_FOLLOW_UP;
      return;
    }
    const link: ThreadLink = { threadId: last.state.id, turn: last.link.turn + 1, parentRunId: last.view.id };
    const history = await turnHistory(await core.store(), last.view.id, services.historyPrefs, question);
    // Asked under a turn opened in its place: the new turn starts a branch there, the later turns are not its.
    const { at: _at, ...state } = last.state;
    current.value = {
      ...state,
      earlier: [...state.earlier, turnFromView(last.view, last.link)],
      later: [],
      total: link.turn + 1,
    };
    await askTurn({ ...input, question }, pool, { link, ...(history ? { history } : {}) }, last.state.title);
  }

  /**
   * Asks `question` in place of the turn `runId`: a new branch from the turn before it (the old branch is
   * kept, and can be switched back to). Regenerate is this with the last question as it was.
   */
  async function branchAt(runId: string, input: AskInput, pool: WorkerSpec[]): Promise<void> {
    const question = input.question.trim();
    const state = current.value;
    if (!question || !state) return;
    const view = runs.currentRun.value;
    if (view && holdsThePage(view)) {
      followUpProblem.value = BUSY_FOLLOW_UP;
      return;
    }
    const at = state.earlier.findIndex((t) => t.id === runId);
    const replaced = at >= 0 ? state.earlier[at] : lastTurn()?.view.id === runId ? lastTurnLink() : undefined;
    if (!replaced) return;
    const link: ThreadLink = { threadId: state.id, turn: replaced.turn };
    if (replaced.parentRunId !== undefined) link.parentRunId = replaced.parentRunId;
    const history = await turnHistory(
      await core.store(),
      replaced.parentRunId,
      services.historyPrefs,
      question,
    );
    const siblings = state.branches[runId] ?? [runId];
    const { at: _at, ...kept } = state;
    current.value = {
      ...kept,
      earlier: at >= 0 ? state.earlier.slice(0, at) : state.earlier,
      later: [],
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
  async function regenerate(input: Omit<AskInput, 'question'>, pool: WorkerSpec[]): Promise<void> {
    const last = lastTurn();
    const kept = last?.link.keptKey ? { keptKey: true as const } : {};
    if (last) await branchAt(last.view.id, { ...input, question: last.view.question, ...kept }, pool);
  }

  return { startThread, acceptsFollowUp, followUp, branchAt, regenerate };
}
