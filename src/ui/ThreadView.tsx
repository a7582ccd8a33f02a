import { useEffect, useState } from 'preact/hooks';
import { routeHash } from '../app/router.ts';
import type { DirectChoice, RunView } from '../app/runs/run-model.ts';
import { statusText } from '../app/status-text.ts';
import { THREAD_PAGE_TURNS } from '../app/threads/opening.ts';
import type { ThreadState } from '../app/threads/thread-core.ts';
import type { ThreadTurn } from '../records/thread-store.ts';
import { formatCost } from '../shared/format-cost.ts';
import { AttachmentChips } from './AttachmentChips.tsx';
import { useAppState } from './app-context.ts';
import { CopyAnswer } from './CopyAnswer.tsx';
import { askedBefore, DirectFollowUp } from './DirectPicker.tsx';
import { EarlierAnswer } from './EarlierAnswer.tsx';
import { EarlierTurnLine } from './EarlierTurnLine.tsx';
import { FollowUp } from './FollowUp.tsx';
import { keptKeyOf } from './KeyWarning.tsx';
import { ThreadInstructions } from './ThreadInstructions.tsx';

/**
 * A thread on the Ask screen: its title (editable), the turns before the last (question and final answer,
 * each editable into a branch), and under the last turn's run the follow-up box, Regenerate and the
 * branches there. The last turn itself is the run view (RunPanel), as any run.
 */

/**
 * The thread of the run on screen, when that run is a turn of it. `inPlace`: the run was opened from
 * History (`#/run/<id>`), and is shown where it stands in its thread, the turns after it below it.
 */
export function useShownThread(view: RunView | undefined, inPlace = false): ThreadState | undefined {
  const { threads } = useAppState();
  const state = threads.current.value;
  const shown = state && (state.at ?? state.leafRunId);
  useEffect(() => {
    // A run of another thread came on screen (a resume, History, a link): its thread follows it.
    if (!view?.thread) return;
    if (view.thread.link.threadId !== state?.id || (inPlace && view.id !== shown))
      void threads.followRun(view, inPlace);
  }, [view?.id, view?.thread?.link.threadId, state?.id, shown, inPlace, threads, view]);
  return state && view?.thread?.link.threadId === state.id ? state : undefined;
}

/**
 * A turn asked or switched to from a stored run opened from History (`#/run/<id>`) is another run: the
 * thread goes on on Ask, which shows the run on screen, as it does for a thread opened from History.
 */
function useOnAsk(): () => void {
  const { router } = useAppState();
  return () => {
    if (router.route.value.name === 'run') router.navigate({ name: 'ask' });
  };
}

/** How to ask the next turn: as the last one was asked (Direct: to its worker), else as the Ask box is set. */
function askedAs(state: ThreadState, view: RunView, review: boolean): NonNullable<ThreadState['asked']> {
  return state.asked ?? askedBefore(view, review);
}

function BranchSwitch({ ids, at }: { ids: readonly string[] | undefined; at: string }) {
  const { threads } = useAppState();
  const onAsk = useOnAsk();
  if (!ids || ids.length < 2) return null;
  const i = ids.indexOf(at);
  const go = (to: number) => {
    const id = ids[to];
    if (!id) return;
    onAsk();
    void threads.switchBranch(id);
  };
  return (
    <span class="row small" data-testid="branch-switch">
      <button
        type="button"
        class="small"
        disabled={i <= 0}
        onClick={() => go(i - 1)}
        aria-label="Previous branch"
      >
        ‹
      </button>
      <span data-testid="branch-position">
        branch {i + 1} of {ids.length}
      </span>
      <button
        type="button"
        class="small"
        disabled={i >= ids.length - 1}
        onClick={() => go(i + 1)}
        aria-label="Next branch"
      >
        ›
      </button>
    </span>
  );
}

/**
 * One turn other than the run on screen: the question, the final answer, Copy. Before it, Edit makes a
 * branch from there; after it (`later`), Open shows that turn in its place.
 */
function OtherTurn({
  turn,
  state,
  view,
  later = false,
}: {
  turn: ThreadTurn;
  state: ThreadState;
  view: RunView;
  later?: boolean;
}) {
  const app = useAppState();
  const onAsk = useOnAsk();
  const [editing, setEditing] = useState(false);
  const summary = turn.summary;
  if (!summary) {
    return (
      <li class="card thread-turn" data-testid={later ? 'later-turn' : 'thread-turn'} data-unreadable="true">
        <p class="alert" data-kind="error">
          Turn {turn.turn + 1} cannot be read ({turn.problem}). The other turns are intact.
        </p>
      </li>
    );
  }
  return (
    <li class="card thread-turn" data-testid={later ? 'later-turn' : 'thread-turn'}>
      <div class="row">
        <strong class="small muted">Turn {turn.turn + 1}</strong>
        <BranchSwitch ids={state.branches[turn.id]} at={turn.id} />
        <span class="spacer" />
        {later ? (
          <a class="small" href={routeHash({ name: 'run', id: turn.id })} data-testid="open-turn">
            Open turn {turn.turn + 1}
          </a>
        ) : (
          <button type="button" class="small" onClick={() => setEditing(true)} data-testid="edit-question">
            Edit
          </button>
        )}
      </div>
      {editing ? (
        <FollowUp
          label="Send as a new branch"
          initial={summary.question}
          testId="edit-turn"
          onCancel={() => setEditing(false)}
          onSend={(question, keptKey) => {
            setEditing(false);
            onAsk();
            const how = askedAs(state, view, app.prefs.askPrefs.value.reviewPlan);
            const input = { question, ...how, ...keptKeyOf(keptKey) };
            void app.threads.branchAt(turn.id, input, app.pool.runPool.value);
          }}
        />
      ) : (
        <p class="thread-question" data-testid="turn-question">
          {summary.question}
        </p>
      )}
      {summary.answer !== undefined ? (
        <>
          <EarlierAnswer summary={summary} text={summary.answer} />
          <CopyAnswer text={summary.answer} testId="copy-turn-answer" />
        </>
      ) : (
        <p class="muted small">No answer ({statusText(summary.status)}).</p>
      )}
      <EarlierTurnLine summary={summary} />
    </li>
  );
}

/** Above the last turn: the thread's title and its earlier turns. */
export function ThreadTurns({ state, view }: { state: ThreadState; view: RunView }) {
  const { threads } = useAppState();
  const [renaming, setRenaming] = useState(false);
  // Turns deleted from history at the branch's start are neither counted nor offered: they cannot be shown.
  const missing = state.missing ?? 0;
  const stored = state.total - missing;
  const hidden = stored - 1 - state.earlier.length - state.later.length;
  return (
    <section class="thread" aria-label="Thread" data-testid="thread">
      <div class="row">
        {renaming ? (
          <FollowUp
            label="Rename"
            initial={state.title}
            testId="rename-thread"
            keyCheck={false}
            onCancel={() => setRenaming(false)}
            onSend={(title) => {
              setRenaming(false);
              void threads.rename(state.id, title);
            }}
          />
        ) : (
          <h2 class="thread-title" data-testid="thread-title">
            {state.title}
          </h2>
        )}
        <span class="spacer" />
        <span class="small muted" data-testid="thread-turns">
          {stored} turn{stored === 1 ? '' : 's'}
        </span>
        {!renaming && (
          <button
            type="button"
            class="small"
            onClick={() => setRenaming(true)}
            data-testid="rename-thread-start"
          >
            Rename
          </button>
        )}
        <button
          type="button"
          class="small"
          onClick={() => void threads.exportThread('json', state.id)}
          data-testid="export-thread-json"
        >
          Export thread (JSON)
        </button>
        <button
          type="button"
          class="small"
          onClick={() => void threads.exportThread('md', state.id)}
          data-testid="export-thread-md"
        >
          Export thread (Markdown)
        </button>
      </div>
      <ThreadInstructions state={state} />
      {hidden > 0 && (
        <button
          type="button"
          class="small"
          onClick={() => void threads.showEarlier()}
          data-testid="show-earlier"
        >
          Show {hidden} earlier turn{hidden === 1 ? '' : 's'}
        </button>
      )}
      {missing > 0 && (
        <p class="muted small" data-testid="thread-missing">
          {missing === 1 ? 'Turn 1 of this thread is' : `Turns 1–${missing} of this thread are`} no longer in
          your history (deleted from it), so {missing === 1 ? 'it is' : 'they are'} not shown here and not
          sent with follow-ups.
        </p>
      )}
      <ol class="thread-turns">
        {state.earlier.map((turn) => (
          <OtherTurn key={turn.id} turn={turn} state={state} view={view} />
        ))}
      </ol>
    </section>
  );
}

/**
 * Below a turn opened in its place (from History): the turns after it in its branch, a page of them, and
 * the way to go on from the branch's last turn.
 */
export function LaterTurns({ state, view }: { state: ThreadState; view: RunView }) {
  const { threads, router } = useAppState();
  if (state.later.length === 0) return null;
  const shown = state.later.slice(0, THREAD_PAGE_TURNS);
  const more = state.later.length - shown.length;
  const goOn = async () => {
    const missing = await threads.openThread(state.id, state.leafRunId);
    if (!missing) router.navigate({ name: 'ask' });
  };
  return (
    <section class="thread" aria-label="Later turns" data-testid="later-turns">
      <ol class="thread-turns" start={(view.thread?.link.turn ?? 0) + 2}>
        {shown.map((turn) => (
          <OtherTurn key={turn.id} turn={turn} state={state} view={view} later />
        ))}
      </ol>
      <div class="row">
        {more > 0 && (
          <span class="small muted">
            and {more} later turn{more === 1 ? '' : 's'}
          </span>
        )}
        <button type="button" class="small" onClick={() => void goOn()} data-testid="go-to-last-turn">
          Go on from the last turn
        </button>
      </div>
    </section>
  );
}

/** Under the last turn: Copy, Edit, Regenerate, its branches, and the follow-up box. */
export function ThreadFooter({ state, view }: { state: ThreadState; view: RunView }) {
  const app = useAppState();
  const { threads } = app;
  const onAsk = useOnAsk();
  const [editing, setEditing] = useState(false);
  const asked = askedAs(state, view, app.prefs.askPrefs.value.reviewPlan);
  const pool = app.pool.runPool.value;
  // Direct: the next turn's worker can be changed here, for this message and the turns after it.
  const [picked, setPicked] = useState<{ thread: string; choice: DirectChoice }>();
  const direct = picked?.thread === state.id ? picked.choice : asked.direct;
  const how = asked.mode === 'direct' && direct ? { ...asked, direct } : asked;
  return (
    <section class="thread-footer" aria-label="Follow up" data-testid="thread-footer">
      <div class="row">
        {view.answer !== undefined && <CopyAnswer text={view.answer} testId="copy-answer" />}
        <BranchSwitch ids={state.branches[view.id]} at={view.id} />
        <span class="spacer" />
        <button type="button" class="small" onClick={() => setEditing(true)} data-testid="edit-last-question">
          Edit question
        </button>
        <button
          type="button"
          class="small"
          onClick={() => {
            onAsk();
            void threads.regenerate(how, pool);
          }}
          data-testid="regenerate"
        >
          Regenerate
        </button>
        {view.totals && <span class="small muted">this turn {formatCost(view.totals.cost)}</span>}
      </div>
      {editing && (
        <FollowUp
          label="Send as a new branch"
          initial={view.question}
          testId="edit-turn"
          autoFocus
          onCancel={() => setEditing(false)}
          onSend={(question, keptKey) => {
            setEditing(false);
            onAsk();
            void threads.branchAt(view.id, { question, ...how, ...keptKeyOf(keptKey) }, pool);
          }}
        />
      )}
      {how.mode === 'direct' && state.later.length === 0 && (
        <DirectFollowUp
          pool={pool}
          value={how.direct}
          onChange={(choice) => setPicked({ thread: state.id, choice })}
        />
      )}
      {/* A turn opened in its place has later turns: a follow-up is asked from the last (LaterTurns). */}
      {state.later.length === 0 && (
        <FollowUp
          problem={threads.followUpProblem.value}
          onRecall={() => setEditing(true)}
          attachments={<AttachmentChips state={app.followUpAttachments} />}
          onFiles={(files) => void app.followUpAttachments.add(files)}
          filesBusy={app.followUpAttachments.busy.value}
          onSend={(question, keptKey) => {
            // Refused while the last turn runs: the question and its files stay in the box.
            if (!threads.acceptsFollowUp()) return false;
            onAsk();
            const attachments = app.followUpAttachments.take();
            void threads.followUp({ question, ...how, attachments, ...keptKeyOf(keptKey) }, pool);
            return true;
          }}
        />
      )}
    </section>
  );
}
