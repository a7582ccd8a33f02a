import type { Passage } from '../attachments/passages.ts';
import type { PastTurn } from '../records/thread-store.ts';
import { termsOf } from '../shared/search-terms.ts';

/**
 * Which earlier turns a follow-up's workers are offered first: the newest (a follow-up like "and why?"
 * is about it), then those that match the new question, best first, then the rest, newest first. The
 * search is the one a file's passages use (src/attachments/passage-index.ts: MiniSearch, the same terms,
 * the same prefix and fuzzy matching), each turn a passage whose heading is its question, so a turn asked
 * about the same thing counts twice as much as one whose answer mentions it. Turn text is data: it is
 * indexed and sent as it is, never read as an instruction.
 *
 * Cost, for n earlier turns: each turn is indexed once (its question and at most `INDEXED_ANSWER_CHARS` of
 * its answer, so O(n) in all), the question is searched once (its few terms against the index), and the
 * order is one pass over the results and the turns: O(n) per follow-up, never a turn against a turn.
 * Built once per run; each worker's budget then walks this order once (turn-history.ts).
 */

export interface TurnRanking {
  /** Indexes into the turns, in the order they are offered to a budget: the newest first. */
  order: readonly number[];
  /** The turns that matched the question (by index), and the question's terms each matched. */
  matched: ReadonlyMap<number, readonly string[]>;
}

/**
 * Of a long answer, the start and end are indexed (where an answer says what it is about and concludes):
 * indexing stays bounded per turn, and a run does not wait on megabytes of old answers.
 */
export const INDEXED_ANSWER_CHARS = 6_000;
/** A turn matches when it scores at least this share of the best turn's score: a shared common word alone is not a match. */
const MATCH_SHARE = 0.25;
/** The question's terms named on the step card for one turn. */
const TERMS_SHOWN = 3;

/** `turns` (oldest first) ordered for `question`; turns without an answer are never offered. */
export async function rankTurns(turns: readonly PastTurn[], question: string): Promise<TurnRanking> {
  const answered: number[] = [];
  turns.forEach((turn, i) => {
    if (turn.answer !== undefined && turn.answer.trim() !== '') answered.push(i);
  });
  const newest = answered.at(-1);
  if (newest === undefined) return { order: [], matched: new Map() };
  const matched = termsOf(question).size > 0 ? await matching(turns, answered, question) : new Map();
  matched.delete(newest);
  const order = [newest, ...matched.keys()];
  for (let k = answered.length - 2; k >= 0; k--) {
    const i = answered[k] as number;
    if (!matched.has(i)) order.push(i);
  }
  return { order, matched };
}

/** The turns matching `question`, best first (a Map keeps that order), with the terms each matched. */
async function matching(
  turns: readonly PastTurn[],
  answered: readonly number[],
  question: string,
): Promise<Map<number, string[]>> {
  const passages: Passage[] = answered.map((i) => {
    const turn = turns[i] as PastTurn;
    return { n: i, place: `turn ${i + 1}`, heading: turn.question, text: indexedAnswer(turn.answer ?? '') };
  });
  // Loaded only when a follow-up has earlier turns to search: MiniSearch stays out of the first screen's JavaScript.
  const { buildPassageIndex } = await import('../attachments/passage-index.ts');
  const search = await buildPassageIndex(passages);
  const results = search.search(question, { combineWith: 'OR' });
  const best = results[0]?.score ?? 0;
  const matched = new Map<number, string[]>();
  for (const result of results) {
    if (result.score < best * MATCH_SHARE) break;
    matched.set(result.id as number, [...new Set(result.queryTerms)].slice(0, TERMS_SHOWN));
  }
  return matched;
}

function indexedAnswer(answer: string): string {
  if (answer.length <= INDEXED_ANSWER_CHARS) return answer;
  const head = Math.ceil(INDEXED_ANSWER_CHARS * 0.7);
  return `${answer.slice(0, head)}\n${answer.slice(answer.length - (INDEXED_ANSWER_CHARS - head))}`;
}
