import { useEffect, useState } from 'preact/hooks';
import { formatCost, formatTime } from '../app/format.ts';
import { navigate } from '../app/router.ts';
import { deleteRun, history, importRun, refreshHistory } from '../app/runs.ts';

/** Every stored run: search, open, delete, import. */
export function HistoryScreen() {
  const [query, setQuery] = useState('');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  useEffect(() => {
    void refreshHistory();
  }, []);
  const q = query.trim().toLowerCase();
  const runs = history.value.filter(
    (r) => !q || r.question.toLowerCase().includes(q) || (r.answer ?? '').toLowerCase().includes(q),
  );

  const onImport = async (input: HTMLInputElement) => {
    const chosen = input.files?.[0];
    input.value = '';
    if (!chosen) return;
    // A file that cannot be read or a store that refuses the write is reported, not left as a silent rejection.
    const result = await chosen
      .text()
      .then(importRun)
      .catch((error: unknown) => ({
        ok: false as const,
        error: `The run could not be imported: ${(error as { message?: string }).message ?? String(error)}`,
      }));
    setMessage(result.ok ? { kind: 'ok', text: 'Run imported.' } : { kind: 'error', text: result.error });
  };

  return (
    <section aria-labelledby="history-title" data-testid="history-screen">
      <div class="row" style={{ marginBottom: '0.75rem' }}>
        <h1 id="history-title" style={{ fontSize: '1.4rem', margin: 0 }}>
          History
        </h1>
        <span class="spacer" />
        <label class="button" for="import-file">
          Import a run (JSON)
        </label>
        <input
          id="import-file"
          type="file"
          accept="application/json,.json"
          class="visually-hidden"
          data-testid="import-file"
          onChange={(e) => void onImport(e.currentTarget as HTMLInputElement)}
        />
      </div>
      {message && (
        <p class="alert" data-kind={message.kind} role="status">
          {message.text}
        </p>
      )}
      <div class="field">
        <label for="history-search">Search questions and answers</label>
        <input
          id="history-search"
          type="search"
          value={query}
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      {runs.length === 0 ? (
        <p class="muted">{history.value.length === 0 ? 'No runs yet.' : 'No run matches.'}</p>
      ) : (
        <ul class="history-list" data-testid="history-list">
          {runs.map((run) => (
            <li key={run.id} data-testid="history-item">
              <a class="q" href={`#/run/${encodeURIComponent(run.id)}`}>
                {run.question}
              </a>
              <span class="badge" data-status={run.status}>
                {run.status}
              </span>
              <span class="small muted">
                {formatTime(run.createdAt)} · {run.totals.steps} step{run.totals.steps === 1 ? '' : 's'} ·{' '}
                {formatCost(run.totals.cost)}
              </span>
              <button
                type="button"
                class="small"
                onClick={() => navigate({ name: 'run', id: run.id })}
                aria-label={`Open run: ${run.question.slice(0, 60)}`}
              >
                Open
              </button>
              <button
                type="button"
                class="small danger"
                aria-label={`Delete run: ${run.question.slice(0, 60)}`}
                onClick={() => {
                  if (confirm('Delete this run from your history?')) void deleteRun(run.id);
                }}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
