import { useEffect, useState } from 'preact/hooks';
import { formatTime } from '../app/format.ts';
import { listedThreads } from '../app/threads/thread-list.ts';
import type { RunSummary } from '../records/runs-db.ts';
import type { ThreadListing } from '../records/thread-store.ts';
import { useAppState } from './app-context.ts';
import { FollowUp } from './FollowUp.tsx';
import { DeleteButton, ListedCost } from './HistoryRowParts.tsx';
import { importChosenFile, JsonFilePicker } from './JsonFilePicker.tsx';

/** Threads shown at a time; "Show more threads" adds as many. */
const THREADS_SHOWN = 50;

/**
 * One listed thread: open it, rename, pin, delete. History lists them, and so does the list beside the
 * conversation (`current`: the thread on screen; `onOpened`: after it was opened, as a drawer closes).
 */
export function ThreadRow({
  thread,
  current = false,
  onOpened,
}: {
  thread: ThreadListing;
  current?: boolean;
  onOpened?: () => void;
}) {
  const { threads, router } = useAppState();
  const [renaming, setRenaming] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const open = async () => {
    const missing = await threads.openThread(thread.id);
    if (missing) setProblem(missing);
    else {
      router.navigate({ name: 'ask' });
      onOpened?.();
    }
  };
  const name = thread.title.slice(0, 60);
  return (
    <li data-testid="thread-item" data-pinned={thread.pinned ? 'true' : undefined}>
      {renaming ? (
        <FollowUp
          label="Rename"
          initial={thread.title}
          testId="rename-listed-thread"
          keyCheck={false}
          onCancel={() => setRenaming(false)}
          onSend={(title) => {
            setRenaming(false);
            void threads.rename(thread.id, title);
          }}
        />
      ) : (
        <button
          type="button"
          class="link q"
          onClick={() => void open()}
          aria-current={current ? 'true' : undefined}
          data-testid="open-thread"
        >
          {thread.title || '(untitled)'}
        </button>
      )}
      <span class="small muted">
        {formatTime(thread.updatedAt)} · <span data-testid="thread-turn-count">{thread.turns}</span> turn
        {thread.turns === 1 ? '' : 's'}
        {thread.runs > thread.turns ? ` (${thread.runs} runs with branches)` : ''} ·{' '}
        <ListedCost
          cost={thread.cost}
          estimated={thread.estimated}
          unpriced={thread.unpriced}
          testId="thread-cost"
        />
      </span>
      <button
        type="button"
        class="small"
        onClick={() => setRenaming(true)}
        aria-label={`Rename thread: ${name}`}
        data-testid="rename-listed-thread-start"
      >
        Rename
      </button>
      <button
        type="button"
        class="small"
        aria-pressed={thread.pinned === true}
        aria-label={`Pin thread: ${name}`}
        onClick={() => void threads.setPinned(thread.id, !thread.pinned)}
        data-testid="pin-thread"
      >
        {thread.pinned ? 'Pinned' : 'Pin'}
      </button>
      <DeleteButton
        kind="thread"
        name={thread.title}
        question="Delete this thread, every turn and branch of it, from your history?"
        onDelete={() => void threads.deleteThread(thread.id)}
      />
      {problem && (
        <p class="alert small" data-kind="error">
          {problem}
        </p>
      )}
    </li>
  );
}

/**
 * History's threads: title, last activity, turns and total spend; a search matches a thread when any of
 * its turns matches (`matches`: the runs the search found). Import takes a thread's JSON export.
 */
export function ThreadHistory({ matches }: { matches: readonly RunSummary[] | undefined }) {
  const { threads, history } = useAppState();
  const [shown, setShown] = useState(THREADS_SHOWN);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const listed = threads.listing.value;
  // Read again whenever History's run list is (a run ended, an import, a delete).
  useEffect(() => {
    threads
      .loadList()
      .catch((error: unknown) =>
        setMessage({ kind: 'error', text: `Your threads could not be read: ${(error as Error).message}` }),
      );
  }, [history.list.value]);
  const wanted = matches ? new Set(matches.map((m) => m.threadId ?? m.id)) : undefined;
  const rows = listedThreads(listed ?? []).filter((t) => !wanted || wanted.has(t.id));

  const onImport = async (input: HTMLInputElement) => {
    const result = await importChosenFile(input, threads.importThread, 'thread');
    if (!result) return;
    setMessage(
      !result.ok
        ? { kind: 'error', text: result.error }
        : result.added === 0
          ? { kind: 'ok', text: 'This thread is already in your history; nothing was added.' }
          : { kind: 'ok', text: `Thread imported (${result.added} run${result.added === 1 ? '' : 's'}).` },
    );
  };

  return (
    <section aria-labelledby="threads-title" data-testid="thread-history">
      <div class="row">
        <h2 id="threads-title">Threads</h2>
        <span class="spacer" />
        <JsonFilePicker
          id="import-thread-file"
          label="Import a thread (JSON)"
          testId="import-thread-file"
          onFile={(input) => void onImport(input)}
        />
      </div>
      {message && (
        <p class="alert" data-kind={message.kind} role="status" data-testid="thread-import-message">
          {message.text}
        </p>
      )}
      {listed === undefined ? (
        <p class="muted" aria-busy="true">
          Loading your threads…
        </p>
      ) : rows.length === 0 ? (
        <p class="muted">{wanted ? 'No thread matches.' : 'No threads yet.'}</p>
      ) : (
        <ul class="history-list" data-testid="thread-list">
          {rows.slice(0, shown).map((thread) => (
            <ThreadRow key={thread.id} thread={thread} />
          ))}
        </ul>
      )}
      {rows.length > shown && (
        <button type="button" onClick={() => setShown((n) => n + THREADS_SHOWN)}>
          Show more threads
        </button>
      )}
    </section>
  );
}
