import { useEffect, useState } from 'preact/hooks';
import { isActive } from '../app/runs/run-model.ts';
import { listedThreads } from '../app/threads/thread-list.ts';
import { useAppState } from './app-context.ts';
import { ThreadRow } from './ThreadHistory.tsx';

/** Typing pauses this long before History's index is searched (as History's own search box waits). */
const SEARCH_DEBOUNCE_MS = 150;
/** Threads listed at a time; "Show more threads" adds as many. */
const THREADS_SHOWN = 50;

/**
 * The threads beside the conversation: a new thread, a search (titles, and every turn's question and
 * answer through History's search), and each thread to open, rename, pin or delete; pinned ones first.
 * `onDone`: a thread was opened or a new one started (the drawer closes then).
 */
export function ThreadList({ idPrefix, onDone }: { idPrefix: string; onDone?: () => void }) {
  const app = useAppState();
  const { threads, history, router, runs } = app;
  const [query, setQuery] = useState('');
  const [matches, setMatches] = useState<ReadonlySet<string> | undefined>();
  const [shown, setShown] = useState(THREADS_SHOWN);
  const [problem, setProblem] = useState<string | undefined>();
  const view = runs.currentRun.value;
  // Read again when a turn ends or another comes on screen (a new thread, a follow-up): not while it streams.
  const settled = view && !isActive(view.phase) ? view.id : undefined;
  useEffect(() => {
    threads
      .loadList()
      .catch((error: unknown) => setProblem(`Your threads could not be read: ${(error as Error).message}`));
  }, [settled]);

  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setMatches(undefined);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      history.search(q).then(
        (found) => !stale && setMatches(new Set(found.map((run) => run.threadId ?? run.id))),
        (error: unknown) => !stale && setProblem(`Search failed: ${(error as Error).message}`),
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query]);

  const listed = threads.listing.value;
  const rows = listed ? listedThreads(listed, { query, matches }) : undefined;
  const currentId = threads.current.value?.id;
  const startNew = () => {
    if (!threads.newThread()) {
      setProblem('A run is still going: stop it or wait for it before you start a new thread.');
      return;
    }
    setProblem(undefined);
    router.navigate({ name: 'ask' });
    onDone?.();
    requestAnimationFrame(() => document.getElementById('question')?.focus());
  };

  return (
    <div class="thread-list" data-testid="thread-sidebar">
      <div class="row">
        <h2 id={`${idPrefix}-title`} class="thread-list-title">
          Threads
        </h2>
        <span class="spacer" />
        <button
          type="button"
          class="small primary"
          onClick={startNew}
          aria-keyshortcuts="Control+Shift+O"
          data-testid="new-thread"
        >
          New thread
        </button>
      </div>
      <label class="visually-hidden" for={`${idPrefix}-search`}>
        Search threads
      </label>
      <input
        id={`${idPrefix}-search`}
        type="search"
        placeholder="Search threads"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        data-shortcut="thread-search"
        data-testid="thread-search"
      />
      {problem && (
        <p class="alert small" data-kind="error" role="alert">
          {problem}
        </p>
      )}
      {rows === undefined ? (
        <p class="muted small" aria-busy="true">
          Loading your threads…
        </p>
      ) : rows.length === 0 ? (
        <p class="muted small" role="status">
          {query.trim() ? 'No thread matches.' : 'No threads yet.'}
        </p>
      ) : (
        <ul class="history-list thread-rows" aria-labelledby={`${idPrefix}-title`}>
          {rows.slice(0, shown).map((thread) => (
            <ThreadRow key={thread.id} thread={thread} current={thread.id === currentId} onOpened={onDone} />
          ))}
        </ul>
      )}
      {rows && rows.length > shown && (
        <button type="button" class="small" onClick={() => setShown((n) => n + THREADS_SHOWN)}>
          Show more threads
        </button>
      )}
    </div>
  );
}
