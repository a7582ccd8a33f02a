import type { RunSummary } from '../records/runs-db.ts';

/**
 * The stored runs' questions and final answers, lower-cased once when History is first searched, newest
 * first. A query matches a run when every word of it occurs in that text, so a keystroke scans prepared
 * strings instead of lower-casing every run again (what made a keystroke block 0.3 s at 10,000 runs).
 *
 * Why not a full-text library: MiniSearch took 9.4 s to index 10,000 runs of this size on this machine
 * (a term tree of ~3 million words) before the first search could answer; scanning the prepared text of
 * 10,000 runs takes milliseconds, keeps substring matching ("swer" finds "answer"), and the History benchmark
 * (bench/history.bench.ts) keeps it measured.
 */
export class HistoryIndex {
  private readonly runs: RunSummary[];
  private readonly texts: string[];

  constructor(summaries: readonly RunSummary[]) {
    this.runs = [...summaries].sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
    this.texts = this.runs.map((run) => `${run.question}\n${run.answer ?? ''}`.toLowerCase());
  }

  get size(): number {
    return this.runs.length;
  }

  /** Runs whose question or answer holds every word of `query`, newest first; every run for a blank query. */
  search(query: string): RunSummary[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return this.runs.slice();
    const out: RunSummary[] = [];
    for (const [i, text] of this.texts.entries()) {
      if (words.every((word) => text.includes(word))) out.push(this.runs[i] as RunSummary);
    }
    return out;
  }
}
