import { useEffect, useState } from 'preact/hooks';
import { estimateNote, formatTime } from '../app/format.ts';
import { HISTORY_PAGE_SIZE } from '../app/history.ts';
import { statusText } from '../app/status-text.ts';
import type { RunSummary, SkippedRun } from '../records/runs-db.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';
import { DeleteButton, ListedCost } from './HistoryRowParts.tsx';
import { importChosenFile, JsonFilePicker } from './JsonFilePicker.tsx';
import { ThreadHistory } from './ThreadHistory.tsx';

/** Typing pauses this long before the index is searched. */
const SEARCH_DEBOUNCE_MS = 150;

function SkippedNotice({ skipped }: { skipped: readonly SkippedRun[] }) {
  if (skipped.length === 0) return null;
  const n = skipped.length;
  const reasons = [...new Set(skipped.map((s) => s.problem))];
  return (
    <div class="alert" data-kind="warn" role="status" data-testid="history-skipped">
      <p>
        {n === 1
          ? '1 stored run could not be read and was skipped'
          : `${n} stored runs could not be read and were skipped`}{' '}
        (the rest of your history is intact).
      </p>
      <ul class="small">
        {reasons.slice(0, 3).map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
        {reasons.length > 3 && <li>…and {reasons.length - 3} other reasons.</li>}
      </ul>
    </div>
  );
}

function HistoryRow({ run }: { run: RunSummary }) {
  const { runs, router } = useAppState();
  const { deleteRun } = runs;
  // Stored as running, and no page runs it (not here, not in another tab): it was interrupted.
  const interrupted =
    run.status === 'running' &&
    runs.unfinished.value.some((u) => u.id === run.id) &&
    !runs.unfinishedElsewhere.value.has(run.id);
  const status = interrupted ? 'interrupted' : run.status;
  return (
    <li data-testid="history-item">
      <a class="q" href={`#/run/${encodeURIComponent(run.id)}`}>
        {run.question}
      </a>
      <span class="badge" data-status={status} data-testid="history-status">
        {interrupted ? 'interrupted' : statusText(run.status)}
      </span>
      <span class="small muted">
        {formatTime(run.createdAt)} · {run.steps} step{run.steps === 1 ? '' : 's'} ·{' '}
        <ListedCost
          cost={run.cost}
          estimated={run.estimated}
          unpriced={run.unpriced}
          testId="history-cost"
          title={run.estimated ? `In part ${estimateNote(run.estimator)}` : undefined}
        />
      </span>
      <button
        type="button"
        class="small"
        onClick={() => router.navigate({ name: 'run', id: run.id })}
        aria-label={`Open run: ${run.question.slice(0, 60)}`}
      >
        Open
      </button>
      <DeleteButton
        kind="run"
        name={run.question}
        question="Delete this run from your history?"
        onDelete={() => void deleteRun(run.id)}
      />
    </li>
  );
}

/** Stored runs, a page at a time: search, open, delete, import. */
export function HistoryScreen() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<{ query: string; results: RunSummary[] } | undefined>();
  const [shownResults, setShownResults] = useState(HISTORY_PAGE_SIZE);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const { runs, history } = useAppState();
  const { importRun } = runs;
  const list = history.list.value;

  useEffect(() => {
    history.load().then(
      // The first page is on screen: read what search needs while the user looks at it.
      () => setTimeout(history.prepareSearch, 0),
      (error: unknown) =>
        setMessage({ kind: 'error', text: `Your history could not be read: ${(error as Error).message}` }),
    );
  }, []);

  // Search after a pause in typing; the list (re)loads after an import or a delete, so search again then too.
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setSearch(undefined);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      history.search(q).then(
        (results) => {
          if (stale) return;
          setSearch({ query: q, results });
          setShownResults(HISTORY_PAGE_SIZE);
        },
        (error: unknown) => setMessage({ kind: 'error', text: `Search failed: ${(error as Error).message}` }),
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, list]);

  const onImport = async (input: HTMLInputElement) => {
    const result = await importChosenFile(input, importRun, 'run');
    if (!result) return;
    setMessage(
      !result.ok
        ? { kind: 'error', text: result.error }
        : result.duplicate
          ? { kind: 'ok', text: 'This run is already in your history; it was not added again.' }
          : { kind: 'ok', text: 'Run imported.' },
    );
  };

  const searching = query.trim() !== '';
  const rows = search ? search.results.slice(0, shownResults) : searching ? [] : list.summaries;
  const more = search ? search.results.length > shownResults : !searching && list.next !== undefined;

  return (
    <section aria-labelledby="history-title" data-testid="history-screen">
      <div class="row" style={{ marginBottom: '0.75rem' }}>
        <h1 id="history-title" style={{ fontSize: '1.4rem', margin: 0 }}>
          History
        </h1>
        <span class="spacer" />
        <JsonFilePicker
          id="import-file"
          label="Import a run (JSON)"
          testId="import-file"
          onFile={(input) => void onImport(input)}
        />
      </div>
      {message && (
        <p class="alert" data-kind={message.kind} role="status">
          {message.text}
        </p>
      )}
      <SkippedNotice skipped={history.skipped.value} />
      <Field
        id="history-search"
        label="Search questions and answers"
        type="search"
        value={query}
        onValue={setQuery}
      />
      <ThreadHistory matches={search?.results} />
      <h2>Runs</h2>
      {!list.loaded || (searching && !search) ? (
        <p class="muted" aria-busy="true">
          {searching ? 'Searching…' : 'Loading your history…'}
        </p>
      ) : rows.length === 0 ? (
        <p class="muted">{searching ? 'No run matches.' : 'No runs yet.'}</p>
      ) : (
        <>
          {search && (
            <p class="small muted" role="status">
              {search.results.length} run{search.results.length === 1 ? '' : 's'} match.
            </p>
          )}
          <ul class="history-list" data-testid="history-list">
            {rows.map((run) => (
              <HistoryRow key={run.id} run={run} />
            ))}
          </ul>
          {more && (
            <button
              type="button"
              data-testid="history-more"
              onClick={() =>
                search ? setShownResults((n) => n + HISTORY_PAGE_SIZE) : void history.loadMore()
              }
            >
              Show more
            </button>
          )}
        </>
      )}
    </section>
  );
}
