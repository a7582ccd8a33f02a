/**
 * Citing passages. A step's message labels the passages it carries [1], [2], … across its files in their
 * order (a PDF's passages can also be cited by page, [p. 12]); an answer that cites them is matched here to
 * the passages the run sent, so the page can open each in the local copy of its file. An answer is
 * untrusted text: a citation that names no passage sent stays text, and nothing of it becomes markup.
 */

/**
 * The label of each file's first passage in a step's message, from how many passages each file carries
 * (0 for a file sent whole): the labels run on from file to file, so one step's labels name one passage
 * each, and its record's files (in the same order) give the same labels again.
 */
export function firstLabels(counts: readonly number[]): number[] {
  let next = 1;
  return counts.map((count) => {
    const first = next;
    next += count;
    return first;
  });
}

/** What a citation names: a passage by its label in the step's message, or a PDF's page. */
export type CiteRef = { label: number } | { page: number };

/** One citation in an answer: where it is, its text as written, and what it names. */
export interface CiteToken {
  start: number;
  end: number;
  text: string;
  refs: CiteRef[];
}

/** A page range longer than this is not read as a citation (an answer's "[pp. 1-9999]" names nothing). */
const MAX_RANGE = 20;

/**
 * `[3]`, `[3, 5]`, `[2-4]`, `[p. 12]`, `[p.12]`, `[page 12]`, `[pp. 12-13]`, `[pages 12, 14]`: numbers
 * and ranges, comma-separated, inside one pair of square brackets.
 */
const CITATION = /\[\s*(?:(pp?\.|pages?)\s*)?(\d{1,5}(?:\s*[-–,]\s*\d{1,5})*)\s*\]/gi;

function numbersOf(list: string): number[] | undefined {
  const numbers: number[] = [];
  for (const item of list.split(',')) {
    const [from, to = from] = item.split(/[-–]/).map((s) => Number(s.trim()));
    if (from === undefined || to === undefined || to < from || to - from >= MAX_RANGE) return undefined;
    for (let n = from; n <= to; n++) numbers.push(n);
  }
  return numbers;
}

/**
 * The citations in `text`, in order. A bracket that links to something else (markdown's `[3](url)`) is
 * not one: it is already a link, and whoever follows it is not shown a passage.
 */
export function findCitations(text: string): CiteToken[] {
  const tokens: CiteToken[] = [];
  for (const match of text.matchAll(CITATION)) {
    const start = match.index;
    const end = start + match[0].length;
    if (text[end] === '(') continue;
    const numbers = numbersOf(match[2] as string);
    if (!numbers || numbers.some((n) => n < 1)) continue;
    const page = match[1] !== undefined;
    tokens.push({
      start,
      end,
      text: match[0],
      refs: numbers.map((n) => (page ? { page: n } : { label: n })),
    });
  }
  return tokens;
}

/** A step's record of a file it sent, as far as citing needs it (src/records/run-types.ts, SentFile). */
export interface SentFileLike {
  id: string;
  name: string;
  passages?: readonly { n: number; place: string }[] | undefined;
}

/** One passage a run sent: in which step, under which label, of which file (by content hash) and where. */
export interface SentPassage {
  step: number;
  label: number;
  file: string;
  name: string;
  /** Its number in the file, from 0 (`splitPassages` gives it again from the same bytes). */
  n: number;
  place: string;
  page?: number;
}

const PAGE_PLACE = /^page (\d+)$/;

/** Every passage the steps sent, each with the label its step's message gave it. */
export function sentPassages(
  steps: readonly { index: number; sent?: readonly SentFileLike[] | undefined }[],
): SentPassage[] {
  return steps.flatMap((step) => {
    const files = step.sent ?? [];
    const firsts = firstLabels(files.map((file) => file.passages?.length ?? 0));
    return files.flatMap((file, i) =>
      (file.passages ?? []).map((p, j) => {
        const page = PAGE_PLACE.exec(p.place)?.[1];
        return {
          step: step.index,
          label: (firsts[i] as number) + j,
          file: file.id,
          name: file.name,
          n: p.n,
          place: p.place,
          ...(page !== undefined ? { page: Number(page) } : {}),
        };
      }),
    );
  });
}

function once(passages: readonly SentPassage[]): SentPassage[] {
  const seen = new Set<string>();
  return passages.filter((p) => {
    const key = `${p.file}#${p.n}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The passages a citation in step `step`'s answer names, each file's passage once. A label is the step's
 * own (its message numbered them); a step that was sent no passages (one that joins others' answers) can
 * only be citing theirs, so its labels are looked for in every step. A page is the answering step's when it
 * was sent that page, else any step's. Nothing sent matches: none, and the citation stays text.
 */
export function citedPassages(ref: CiteRef, sent: readonly SentPassage[], step: number): SentPassage[] {
  const own = sent.filter((p) => p.step === step);
  if ('label' in ref) {
    const pool = own.length > 0 ? own : sent;
    return once(pool.filter((p) => p.label === ref.label));
  }
  const onPage = (p: SentPassage) => p.page === ref.page;
  const mine = own.filter(onPage);
  return once(mine.length > 0 ? mine : sent.filter(onPage));
}

/** The passages one citation names, over all it lists (`[3, 5]`, `[pp. 12-13]`), each once. */
export function tokenPassages(token: CiteToken, sent: readonly SentPassage[], step: number): SentPassage[] {
  return once(token.refs.flatMap((ref) => citedPassages(ref, sent, step)));
}
