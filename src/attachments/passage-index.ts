/**
 * A file's passages indexed for lexical search (MiniSearch's BM25, with prefix and fuzzy matching, the
 * search workflow memory uses), and the choice of the passages a step is sent. Lexical only: the one
 * embedding model that could be tried here (Universal Sentence Encoder lite) found fewer answers on
 * COVID-QA than these words do, and blended with them no more (ARCHITECTURE.md, "Local reading").
 *
 * Indexing yields to the page every few passages (`addAllAsync`), so a 100-page PDF never holds the main
 * thread for long (bench p26).
 */
import MiniSearch, { type Options } from 'minisearch';
import { documentTerm, termsOf } from '../shared/search-terms.ts';
import { MAX_PASSAGES, PASSAGE_BUDGET_CHARS, type Passage } from './passages.ts';

interface IndexedPassage {
  id: number;
  text: string;
  heading?: string;
}

export const INDEX_OPTIONS: Options<IndexedPassage> = {
  fields: ['text', 'heading'],
  processTerm: documentTerm,
  searchOptions: {
    processTerm: documentTerm,
    boost: { heading: 2 },
    prefix: (term) => term.length >= 4,
    fuzzy: 0.15,
  },
};

export type PassageSearch = MiniSearch<IndexedPassage>;

/** Passages indexed per chunk, the page's own work between them. */
const CHUNK = 8;

export async function buildPassageIndex(passages: readonly Passage[]): Promise<PassageSearch> {
  const search = new MiniSearch<IndexedPassage>(INDEX_OPTIONS);
  await search.addAllAsync(
    passages.map((p) => ({ id: p.n, text: p.text, ...(p.heading ? { heading: p.heading } : {}) })),
    { chunkSize: CHUNK },
  );
  return search;
}

export function loadPassageIndex(json: string): Promise<PassageSearch> {
  return MiniSearch.loadJSONAsync<IndexedPassage>(json, INDEX_OPTIONS);
}

export interface PassageChoice {
  /** The passages chosen, in the file's order. */
  passages: Passage[];
  /**
   * The query matched weakly: no passage holds half of its terms (or none holds any, and the file's first
   * passages were taken). Said on the step, so the user knows the worker may lack what it needs.
   */
  weak: boolean;
  /** No passage holds any term of the query: the file's first passages were taken. */
  unmatched?: true;
}

/**
 * The passages most like `query`, best first until `MAX_PASSAGES` or the budget, then put back in the
 * file's order. A query that matches nothing still sends something: the file's first passages (where a
 * document says what it is), marked weak.
 */
export function choosePassages(
  search: PassageSearch,
  passages: readonly Passage[],
  query: string,
  limits: { max?: number; budgetChars?: number } = {},
): PassageChoice {
  const max = limits.max ?? MAX_PASSAGES;
  const budget = limits.budgetChars ?? PASSAGE_BUDGET_CHARS;
  const terms = termsOf(query, documentTerm).size;
  const results = terms > 0 ? search.search(query, { combineWith: 'OR' }) : [];
  const best = results[0];
  const weak = !best || new Set(best.queryTerms).size * 2 < terms;
  const ranked = results.length > 0 ? results.map((r) => passages[r.id as number]) : passages;
  const chosen: Passage[] = [];
  let size = 0;
  for (const passage of ranked) {
    if (!passage || chosen.length >= max) break;
    if (chosen.length > 0 && size + passage.text.length > budget) continue;
    chosen.push(passage);
    size += passage.text.length;
  }
  return { passages: chosen.sort((a, b) => a.n - b.n), weak, ...(best ? {} : { unmatched: true as const }) };
}
