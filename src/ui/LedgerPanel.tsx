import { useEffect } from 'preact/hooks';
import { ESTIMATED, estimateNote, formatTime } from '../app/format.ts';
import { documentsOut } from '../app/ledger-documents.ts';
import { takeoversIn } from '../app/ledger-takeovers.ts';
import { LEDGER_PAGE_SIZE, type LedgerEntry, type LedgerPurpose } from '../egress/ledger.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { useAppState } from './app-context.ts';

const PURPOSE_LABELS: Partial<Record<LedgerPurpose, string>> = {
  'model-download': 'model download',
  'local-planning': 'local planning',
  'connection-test': 'connection test',
};

/** What the purpose column says: a tool call names its server and tool. */
function purposeText(e: LedgerEntry): string {
  if (e.purpose === 'tool')
    return e.tool ? `tool ${e.server ?? ''}.${e.tool}` : `tool server ${e.server ?? ''}`;
  return PURPOSE_LABELS[e.purpose] ?? e.purpose;
}

function statusText(e: LedgerEntry): string {
  if (!e.sent) return `refused${e.error ? `: ${e.error}` : ''}`;
  if (e.state === 'error') return `${e.status ?? 'failed'}${e.error ? `: ${e.error}` : ''}`;
  return String(e.status ?? e.state);
}

/**
 * Every request that left the page (or was refused), the conductor's model downloads included: when,
 * where, how much, and for which run and step. Newest first, a page at a time.
 */
export function LedgerPanel() {
  const view = useAppState().ledgerView;
  const page = view.page.value;
  const trail = view.trail.value;
  useEffect(() => view.open(), []);
  const entries = page?.entries;
  const first = (trail.length - 1) * LEDGER_PAGE_SIZE + 1;
  return (
    <section class="card" aria-labelledby="ledger-title" data-testid="ledger-panel">
      <div class="row">
        <h2 id="ledger-title" style={{ margin: 0 }}>
          Requests and downloads
        </h2>
        <span class="spacer" />
        <button type="button" class="small" onClick={() => void view.exportAs('json')}>
          Export JSON
        </button>
        <button type="button" class="small" onClick={() => void view.exportAs('csv')}>
          Export CSV
        </button>
      </div>
      <p class="small muted">
        Every request this page sends goes through one module and is written here, and so is every file the
        conductor model downloads. Keys and prompts are never recorded. Tokens marked ≈ are the run's own
        estimate, where the provider sent no usage.
      </p>
      {entries === undefined ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 && trail.length === 1 ? (
        <p class="muted">No request has left this page.</p>
      ) : (
        <div class="table-wrap">
          <nav class="row" aria-label="Ledger pages" data-testid="ledger-pages">
            <span class="small muted" aria-live="polite">
              {entries.length === 0
                ? `None of ${page?.total ?? 0}`
                : `${first}–${first + entries.length - 1} of ${page?.total ?? 0}`}
            </span>
            <span class="spacer" />
            <button type="button" class="small" disabled={trail.length === 1} onClick={view.newer}>
              Newer
            </button>
            <button
              type="button"
              class="small"
              disabled={page?.nextBefore === undefined}
              onClick={view.older}
            >
              Older
            </button>
          </nav>
          <LedgerTable entries={entries} caption="Requests, newest first" names={view.names.value} />
        </div>
      )}
    </section>
  );
}

const NO_NAMES: ReadonlyMap<string, string> = new Map();

/**
 * Ledger entries as rows (this page's, and an answer's own requests under its steps); a request that
 * carried documents says, under its bytes out, how many bytes of which (by the name in `names`, else by
 * its hash).
 */
export function LedgerTable({
  entries,
  caption,
  names = NO_NAMES,
}: {
  entries: readonly LedgerEntry[];
  caption: string;
  names?: ReadonlyMap<string, string>;
}) {
  const takeovers = takeoversIn(entries);
  return (
    <table class="data">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Host</th>
          <th scope="col">Purpose</th>
          <th scope="col">Run / step</th>
          <th scope="col">Status</th>
          <th scope="col">Out</th>
          <th scope="col">In</th>
          <th scope="col">Tokens</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td>{formatTime(e.time)}</td>
            <td>{e.host}</td>
            <td>{purposeText(e)}</td>
            <td>
              {e.runId ? `${e.runId.slice(0, 6)} / ${e.stepIndex ?? '—'}` : '—'}
              {e.worker && <span class="small muted"> · {e.worker}</span>}
              {takeovers.has(e.id) && (
                <span class="small" data-testid="ledger-takeover">
                  {' '}
                  (took over from {takeovers.get(e.id)})
                </span>
              )}
            </td>
            <td>
              {statusText(e)}
              {removedKeysNote(e) && <span class="small muted"> · {removedKeysNote(e)}</span>}
            </td>
            <td>
              {formatBytes(e.bytesOut)}
              <DocumentsOut entry={e} names={names} />
            </td>
            <td>{formatBytes(e.bytesIn)}</td>
            <td
              data-testid="ledger-tokens"
              title={e.tokensEstimatedBy ? estimateNote(e.tokensEstimatedBy) : undefined}
            >
              {tokensText(e)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "of which contract.pdf 4 KB, notes.md 2 KB": the documents' bytes in a request, each file's name as text. */
function DocumentsOut({ entry, names }: { entry: LedgerEntry; names: ReadonlyMap<string, string> }) {
  const documents = documentsOut(entry.documentBytes, names);
  if (documents.length === 0) return null;
  return (
    <span class="small muted ledger-documents" data-testid="ledger-documents">
      {' '}
      of which {documents.map((d) => `${d.name} ${formatBytes(d.bytes)}`).join(', ')}
    </span>
  );
}

/** "12 / 40", or "≈12 / ≈40" when the provider sent no usage and the run estimated it. */
function tokensText(e: LedgerEntry): string {
  if (e.promptTokens === undefined) return '—';
  const mark = e.tokensEstimatedBy ? ESTIMATED : '';
  return `${mark}${e.promptTokens} / ${mark}${e.completionTokens ?? 0}`;
}

/** What egress took out of a request or its answer: saved keys that did not belong there. */
function removedKeysNote(e: LedgerEntry): string | undefined {
  const keys = (n: number) => `${n} saved key${n === 1 ? '' : 's'}`;
  const parts = [
    ...(e.keysRemoved ? [`${keys(e.keysRemoved)} of other hosts removed from the request`] : []),
    ...(e.answerKeysRemoved ? [`${keys(e.answerKeysRemoved)} removed from the answer`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}
