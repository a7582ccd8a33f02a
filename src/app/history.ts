import { signal } from '@preact/signals';
import type { RunSummary, SkippedRun, SummaryPage } from '../executor/store.ts';
import type { HistoryIndex } from './history-search.ts';
import { getRunStore } from './services.ts';

/** Runs History shows at a time; "Show more" adds as many. */
export const HISTORY_PAGE_SIZE = 50;

export interface HistoryList {
  /** Newest first, as far as paged in. */
  summaries: RunSummary[];
  next?: SummaryPage['next'];
  loaded: boolean;
}

/** What History lists: a page of summaries at a time, never whole runs. */
export const historyList = signal<HistoryList>({ summaries: [], loaded: false });
/** Stored runs that could not be read, with the reason: History says they were skipped. */
export const historySkipped = signal<SkippedRun[]>([]);

let index: Promise<HistoryIndex> | undefined;

function mergeSkipped(found: readonly SkippedRun[]): void {
  const known = new Map(historySkipped.value.map((s) => [s.id, s]));
  let changed = false;
  for (const s of found) {
    if (known.has(s.id)) continue;
    known.set(s.id, s);
    changed = true;
  }
  if (changed) historySkipped.value = [...known.values()];
}

/** Reads the first page again (after a run ends, an import or a delete); the search index is rebuilt when next used. */
export async function loadHistory(): Promise<void> {
  const store = await getRunStore();
  const [page, damaged] = await Promise.all([
    store.listSummaries({ limit: HISTORY_PAGE_SIZE }),
    store.listDamaged(),
  ]);
  index = undefined;
  historySkipped.value = [];
  mergeSkipped([...damaged, ...page.skipped]);
  historyList.value = { summaries: page.summaries, next: page.next, loaded: true };
}

/** Reloads the list only if History has been opened: nothing else needs it. */
export async function reloadHistoryIfShown(): Promise<void> {
  if (historyList.value.loaded) await loadHistory();
}

export async function loadMoreHistory(): Promise<void> {
  const current = historyList.value;
  if (!current.next) return;
  const store = await getRunStore();
  const page = await store.listSummaries({ limit: HISTORY_PAGE_SIZE, from: current.next });
  mergeSkipped(page.skipped);
  historyList.value = { summaries: [...current.summaries, ...page.summaries], next: page.next, loaded: true };
}

function buildIndex(): Promise<HistoryIndex> {
  index ??= Promise.all([getRunStore(), import('./history-search.ts')]).then(async ([store, m]) => {
    const all = await store.allSummaries();
    mergeSkipped(all.skipped);
    return new m.HistoryIndex(all.summaries);
  });
  return index;
}

/** Starts building the search index (History calls it once its first page is on screen). */
export function prepareSearch(): void {
  void buildIndex().catch(() => {
    index = undefined; // the search that needs it will build it again and report the failure
  });
}

/** Every run matching `query`, newest first. The index is built on the first search if not yet prepared. */
export async function searchHistory(query: string): Promise<RunSummary[]> {
  const built = buildIndex();
  try {
    return (await built).search(query);
  } catch (error) {
    if (index === built) index = undefined;
    throw error;
  }
}
