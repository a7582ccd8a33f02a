/**
 * The terms a lexical search (MiniSearch) indexes and looks up: lower case, at least two characters, and
 * none of the words that say nothing about what a text is about ("what is the" would match everything).
 * One rule for workflow memory and for a file's passages, so both read a question the same way.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can could do does for from how i in is it its me my of on or please ' +
    'should so that the their then there these this to was what when where which who why will with ' +
    'would you your'
  ).split(' '),
);

export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
}

/**
 * A document's terms: the same, and a number of one digit too. In a document a number names a place
 * ("clause 7", "schedule 3", "page 9"), and a question about that place is lost without it.
 */
export function documentTerm(term: string): string | null {
  return /^\p{Nd}$/u.test(term) ? term : processTerm(term);
}

/** The distinct search terms of a text, as MiniSearch indexes them (with `process`, by default memory's rule). */
export function termsOf(text: string, process: (term: string) => string | null = processTerm): Set<string> {
  const terms = new Set<string>();
  for (const raw of text.split(/[\n\r\p{Z}\p{P}]+/u)) {
    const term = process(raw);
    if (term) terms.add(term);
  }
  return terms;
}
