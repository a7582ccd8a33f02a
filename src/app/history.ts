import { signal } from '@preact/signals';
import type { RunHistoryStore } from '../records/run-store.ts';
import type { RunRecord, RunSummary, SkippedRun, StepRecord, SummaryPage } from '../records/runs-db.ts';
import type { HistoryIndex } from './history-search.ts';
import { exportedFiles, importedFiles } from './run-files.ts';
import { downloadText } from './save-file.ts';

/** Runs History shows at a time; "Show more" adds as many. */
export const HISTORY_PAGE_SIZE = 50;

export interface HistoryList {
  /** Newest first, as far as paged in. */
  summaries: RunSummary[];
  next?: SummaryPage['next'];
  loaded: boolean;
}

export type History = ReturnType<typeof createHistory>;

/** What History lists (a page of summaries at a time, never whole runs) and its search. */
export function createHistory(services: { runStore(): Promise<RunHistoryStore> }) {
  const list = signal<HistoryList>({ summaries: [], loaded: false });
  /** Stored runs that could not be read, with the reason: History says they were skipped. */
  const skipped = signal<SkippedRun[]>([]);
  let index: Promise<HistoryIndex> | undefined;

  function mergeSkipped(found: readonly SkippedRun[]): void {
    const known = new Map(skipped.value.map((s) => [s.id, s]));
    let changed = false;
    for (const s of found) {
      if (known.has(s.id)) continue;
      known.set(s.id, s);
      changed = true;
    }
    if (changed) skipped.value = [...known.values()];
  }

  /** Reads the first page again (after a run ends, an import or a delete); the search index is rebuilt when next used. */
  async function load(): Promise<void> {
    const store = await services.runStore();
    const [page, damaged] = await Promise.all([
      store.listSummaries({ limit: HISTORY_PAGE_SIZE }),
      store.listDamaged(),
    ]);
    index = undefined;
    skipped.value = [];
    mergeSkipped([...damaged, ...page.skipped]);
    list.value = { summaries: page.summaries, next: page.next, loaded: true };
  }

  /** Reloads the list only if History has been opened: nothing else needs it. */
  async function reloadIfShown(): Promise<void> {
    if (list.value.loaded) await load();
  }

  async function loadMore(): Promise<void> {
    const current = list.value;
    if (!current.next) return;
    const store = await services.runStore();
    const page = await store.listSummaries({ limit: HISTORY_PAGE_SIZE, from: current.next });
    mergeSkipped(page.skipped);
    list.value = { summaries: [...current.summaries, ...page.summaries], next: page.next, loaded: true };
  }

  function buildIndex(): Promise<HistoryIndex> {
    index ??= Promise.all([services.runStore(), import('./history-search.ts')]).then(async ([store, m]) => {
      const all = await store.allSummaries();
      mergeSkipped(all.skipped);
      return new m.HistoryIndex(all.summaries);
    });
    return index;
  }

  /** Starts building the search index (History calls it once its first page is on screen). */
  function prepareSearch(): void {
    void buildIndex().catch(() => {
      index = undefined; // the search that needs it will build it again and report the failure
    });
  }

  /** Every run matching `query`, newest first. The index is built on the first search if not yet prepared. */
  async function search(query: string): Promise<RunSummary[]> {
    const built = buildIndex();
    try {
      return (await built).search(query);
    } catch (error) {
      if (index === built) index = undefined;
      throw error;
    }
  }

  return { list, skipped, load, reloadIfShown, loadMore, prepareSearch, search };
}

/** The stored run `id`, if any, before an import; a damaged one is deleted, so the file's copy replaces it. */
function storedBeforeImport(store: RunHistoryStore, id: string) {
  return store.getRun(id).catch(async () => {
    await store.deleteRun(id);
    return undefined;
  });
}

/**
 * Stores an imported run (a run's file, or one run of a thread's) with its files and steps, unless a
 * readable copy of it is stored already. Its files are checked against their hashes, and one left out is
 * said on the run. Returns whether it was stored.
 */
export async function storeImported(
  store: RunHistoryStore,
  data: { run: RunRecord; steps: readonly StepRecord[]; files?: unknown[] },
): Promise<boolean> {
  if (await storedBeforeImport(store, data.run.id)) return false;
  await importedFiles(store, data);
  await store.putRunAndSteps(data.run, data.steps);
  return true;
}

/** What the history actions on runs need: the store, the run on screen, and a way to read History again. */
export interface HistoryActionServices {
  runStore(): Promise<RunHistoryStore>;
  /** A run was deleted: the page stops showing it, if it does. */
  forget(id: string): void;
  /** After an import or a delete: the unfinished runs, and History's list if it is shown. */
  refreshHistory(): Promise<void>;
}

/** The actions on stored runs as a whole: import, export, delete, discard an unfinished one. */
export function createHistoryActions({ runStore, forget, refreshHistory }: HistoryActionServices) {
  async function discardUnfinished(id: string): Promise<void> {
    const store = await runStore();
    await store.discardRun(id, 'Discarded after a reload.');
    await refreshHistory();
  }

  async function deleteRun(id: string): Promise<void> {
    const store = await runStore();
    await store.deleteRun(id);
    forget(id);
    await refreshHistory();
  }

  /**
   * Stores an exported run. A run already in the history (same id: imported before, or exported from here) is
   * not stored twice; a stored copy that cannot be read is replaced by the file's.
   */
  async function importRun(
    text: string,
  ): Promise<{ ok: true; id: string; duplicate: boolean } | { ok: false; error: string }> {
    const { parseRunImport } = await import('./export.ts');
    const result = parseRunImport(text);
    if (!result.ok) return result;
    const store = await runStore();
    const id = result.data.run.id;
    const run = { ...result.data.run, updatedAt: Date.now() };
    if (!(await storeImported(store, { ...result.data, run }))) return { ok: true, id, duplicate: true };
    await refreshHistory();
    return { ok: true, id, duplicate: false };
  }

  async function exportCurrent(
    kind: 'json' | 'md',
    id: string,
    options: { withoutFiles?: boolean } = {},
  ): Promise<void> {
    const [m, store] = await Promise.all([import('./export.ts'), runStore()]);
    const stored = await store.getRun(id);
    if (!stored) return;
    // Attached files go with a JSON export unless the user leaves them out.
    const files = kind === 'json' && !options.withoutFiles ? await exportedFiles(store, stored.run) : [];
    const [text, type] =
      kind === 'json'
        ? [m.exportRunJson(stored.run, stored.steps, files), 'application/json']
        : [m.exportRunMarkdown(stored.run, stored.steps), 'text/markdown'];
    downloadText(m.exportFilename(stored.run, kind), text, type);
  }

  return { discardUnfinished, deleteRun, importRun, exportCurrent };
}
