/**
 * The egress ledger as its page shows it: one page of entries at a time, newest first, read again
 * whenever the ledger changes while the page is open, and its exports.
 */
import { signal } from '@preact/signals';
import type { Ledger, LedgerEntry, LedgerPage } from '../egress/ledger.ts';
import type { RunHistoryStore } from '../records/run-store.ts';
import type { AttachmentRef } from '../records/runs-db.ts';
import { documentNames } from './ledger-documents.ts';
import { downloadText } from './save-file.ts';

export function createLedgerView(services: {
  ledger(): Promise<Ledger>;
  runStore?: () => Promise<Pick<RunHistoryStore, 'getRun'>>;
}) {
  const page = signal<LedgerPage | undefined>(undefined);
  /** The names of the documents the page's requests carried, by content hash, from their runs. */
  const names = signal<ReadonlyMap<string, string>>(new Map());
  /** `before` of each page shown so far; the last is the current page (undefined: the newest). */
  const trail = signal<(number | undefined)[]>([undefined]);
  let reads = 0;
  // A run's files never change: each run is read once while the page lives (the ledger is read again on
  // every change while it is open).
  const runFiles = new Map<string, Promise<readonly AttachmentRef[] | undefined>>();

  function filesOfRun(runId: string): Promise<readonly AttachmentRef[] | undefined> {
    const runStore = services.runStore;
    if (!runStore) return Promise.resolve(undefined);
    let files = runFiles.get(runId);
    if (!files) {
      files = runStore().then(async (store) => (await store.getRun(runId))?.run.attachments);
      runFiles.set(runId, files);
      // A store that could not be read is asked again next time.
      files.catch(() => runFiles.delete(runId));
    }
    return files;
  }

  async function load(): Promise<void> {
    const read = ++reads;
    const ledger = await services.ledger();
    const before = trail.value.at(-1);
    const next = await ledger.page(before === undefined ? {} : { before });
    // A page turned (or a later change) while this read was out wins.
    if (read === reads) page.value = next;
    if (!next.entries.some((e) => e.documentBytes)) return;
    const found = await documentNames(next.entries, filesOfRun);
    if (read === reads) names.value = found;
  }

  /** Shows the newest page and follows the ledger until the returned function is called. */
  function open(): () => void {
    let off: (() => void) | undefined;
    let open = true;
    trail.value = [undefined];
    void load();
    void services.ledger().then((ledger) => {
      if (open) off = ledger.subscribe(() => void load());
    });
    return () => {
      open = false;
      off?.();
    };
  }

  function older(): void {
    const nextBefore = page.value?.nextBefore;
    if (nextBefore === undefined) return;
    trail.value = [...trail.value, nextBefore];
    void load();
  }

  function newer(): void {
    if (trail.value.length === 1) return;
    trail.value = trail.value.slice(0, -1);
    void load();
  }

  async function exportAs(kind: 'json' | 'csv'): Promise<void> {
    const ledger = await services.ledger();
    if (kind === 'json')
      downloadText('baton-egress-ledger.json', await ledger.exportJSON(), 'application/json');
    else downloadText('baton-egress-ledger.csv', await ledger.exportCSV(), 'text/csv');
  }

  /** Every request of one run, oldest first: the rows an answer's machinery shows under its steps. */
  async function ofRun(runId: string): Promise<LedgerEntry[]> {
    const entries = await (await services.ledger()).list({ runId });
    return entries.sort((a, b) => a.time - b.time || a.id - b.id);
  }

  return { page, names, trail, open, older, newer, exportAs, ofRun };
}

export type LedgerView = ReturnType<typeof createLedgerView>;
