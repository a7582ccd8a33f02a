import { useEffect, useState } from 'preact/hooks';
import { downloadText } from '../app/export.ts';
import { formatBytes, formatTime } from '../app/format.ts';
import { getLedger } from '../app/services.ts';
import type { LedgerEntry } from '../egress/ledger.ts';

/** Every request that left the page (or was refused): when, where, how much, and for which run and step. */
export function LedgerPanel() {
  const [entries, setEntries] = useState<LedgerEntry[] | undefined>();
  useEffect(() => {
    let off: (() => void) | undefined;
    void getLedger().then(async (ledger) => {
      const load = async () => setEntries(await ledger.list());
      await load();
      off = ledger.subscribe(() => void load());
    });
    return () => off?.();
  }, []);
  const exportAs = async (kind: 'json' | 'csv') => {
    const ledger = await getLedger();
    if (kind === 'json')
      downloadText('baton-egress-ledger.json', await ledger.exportJSON(), 'application/json');
    else downloadText('baton-egress-ledger.csv', await ledger.exportCSV(), 'text/csv');
  };
  const shown = (entries ?? []).slice(-200).reverse();
  return (
    <section class="card" aria-labelledby="ledger-title" data-testid="ledger-panel">
      <div class="row">
        <h2 id="ledger-title" style={{ margin: 0 }}>
          Egress ledger
        </h2>
        <span class="spacer" />
        <button type="button" class="small" onClick={() => void exportAs('json')}>
          Export JSON
        </button>
        <button type="button" class="small" onClick={() => void exportAs('csv')}>
          Export CSV
        </button>
      </div>
      <p class="small muted">
        Every request this page sends goes through one module and is written here. Keys and prompts are never
        recorded.
      </p>
      {entries === undefined ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">No request has left this page.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">Requests, newest first</caption>
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
              {shown.map((e) => (
                <tr key={e.id}>
                  <td>{formatTime(e.time)}</td>
                  <td>{e.host}</td>
                  <td>{e.purpose}</td>
                  <td>{e.runId ? `${e.runId.slice(0, 6)} / ${e.stepIndex ?? '—'}` : '—'}</td>
                  <td>
                    {e.sent ? (e.status ?? e.state) : `refused${e.error ? `: ${e.error}` : ''}`}
                    {removedKeysNote(e) && <span class="small muted"> · {removedKeysNote(e)}</span>}
                  </td>
                  <td>{formatBytes(e.bytesOut)}</td>
                  <td>{formatBytes(e.bytesIn)}</td>
                  <td>
                    {e.promptTokens !== undefined ? `${e.promptTokens} / ${e.completionTokens ?? 0}` : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
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
