import MiniSearch from 'minisearch';
import type { RunSummary } from '../executor/store.ts';

/**
 * A full-text index of the stored runs' questions and final answers, built once from their summaries.
 * Words match by prefix ("agr" finds "agree"), every word of the query must match, and results come newest
 * first like the list. MiniSearch does the tokenizing and the inverted index: searching 10,000 runs reads
 * only the words' postings instead of lowercasing every run on each keystroke.
 */
export class HistoryIndex {
  private readonly index = new MiniSearch<RunSummary>({
    fields: ['question', 'answer'],
    storeFields: [],
    searchOptions: { prefix: true, combineWith: 'AND' },
  });
  private readonly byId = new Map<string, RunSummary>();

  constructor(summaries: readonly RunSummary[]) {
    for (const summary of summaries) this.byId.set(summary.id, summary);
    this.index.addAll([...this.byId.values()]);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Runs matching every word of `query`, newest first; every run for a blank query. */
  search(query: string): RunSummary[] {
    const hits = query.trim()
      ? this.index.search(query).flatMap((hit) => this.byId.get(String(hit.id)) ?? [])
      : [...this.byId.values()];
    return hits.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
  }
}
