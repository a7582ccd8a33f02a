import { signal } from '@preact/signals';
import type {
  RunHistoryStore,
  RunSummary,
  SkippedRun,
  StoredRunStatus,
  SummaryPage,
} from '../executor/store.ts';
import type { HistoryIndex } from './history-search.ts';

/** Runs History shows at a time; "Show more" adds as many. */
export const HISTORY_PAGE_SIZE = 50;

const STATUS_TEXT: Record<StoredRunStatus, string> = {
  running: 'running',
  done: 'done',
  partial: 'done, some steps failed',
  failed: 'failed',
  cancelled: 'cancelled',
  planned: 'plan not run yet',
  'planning-failed': 'planning failed',
};

/** What History says of a run's status, in words. */
export function statusText(status: StoredRunStatus): string {
  return STATUS_TEXT[status];
}

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
