// P24 on a published set: COVID-QA (deepset; Möller et al. 2020, ACL 2020 NLP-COVID workshop; Apache-2.0),
// SQuAD-format questions with answer spans over full-text CORD-19 articles. bench/data/README.md says where
// it comes from and why its bytes are not in this repository: the bench reads it from the shared folder
// beside the repository, or from the file BATON_COVIDQA names, and checks that it is the published file.
//
// Each article goes through the app's own path for a text file a step reads as passages: a text attachment
// of the article's text, splitPassages, the passage library's index, choosePassages with the question as the
// query and the app's limits. A question is recalled when the passages sent cover its gold answer's
// characters (offsets mapped to passages; see `answerAt` for spans whose published offset is off).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { choosePassages } from '../src/attachments/passage-index.ts';
import { createPassageLibrary } from '../src/attachments/passage-store.ts';
import { type Passage, splitPassages } from '../src/attachments/passages.ts';
import type { TextAttachment } from '../src/attachments/types.ts';

/** SHA-256 of data/question-answering/200423_covidQA.json at commit fb2eb5e of deepset-ai/COVID-QA. */
const PUBLISHED_SHA256 = 'ab310b4e39f726e087c8fa3d1787c73771dacddc584977204ebe3cc889ee1264';
const FILE = '200423_covidQA.json';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PLACES = [
  resolve(repoRoot, '../shared/data/covid-qa', `${FILE}.gz`),
  resolve(repoRoot, '../shared/data/covid-qa', FILE),
];

interface Squad {
  data: {
    paragraphs: {
      context: string;
      document_id: number;
      qas: { question: string; id: number; answers: { text: string; answer_start: number }[] }[];
    }[];
  }[];
}

function readSet(): Squad {
  const named = process.env.BATON_COVIDQA;
  const path = named ?? PLACES.find((p) => existsSync(p));
  if (!path || !existsSync(path)) {
    throw new Error(
      `COVID-QA not found (${named ? `BATON_COVIDQA=${named}` : `looked for ${PLACES.join(' and ')}`}): ` +
        `put ${FILE} (or ${FILE}.gz) from deepset-ai/COVID-QA, commit fb2eb5e, data/question-answering/, ` +
        'there or name it in BATON_COVIDQA (bench/data/README.md)',
    );
  }
  const raw = readFileSync(path);
  const bytes = path.endsWith('.gz') ? gunzipSync(raw) : raw;
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== PUBLISHED_SHA256) {
    throw new Error(`${path} is not the published ${FILE} (SHA-256 ${sha}, expected ${PUBLISHED_SHA256})`);
  }
  return JSON.parse(bytes.toString('utf8')) as Squad;
}

/**
 * Where the gold answer is in the article. 234 of the 1,380 published offsets do not point at the answer's
 * text (the text is there, shifted by a few characters): the occurrence nearest the published offset is
 * taken. An answer whose text is nowhere in the article would be an error in the set: none is.
 */
function answerAt(context: string, answer: { text: string; answer_start: number }): [number, number] {
  const { text, answer_start: start } = answer;
  if (context.startsWith(text, start)) return [start, start + text.length];
  let best = -1;
  for (let at = context.indexOf(text); at >= 0; at = context.indexOf(text, at + 1)) {
    if (best < 0 || Math.abs(at - start) < Math.abs(best - start)) best = at;
  }
  if (best < 0) throw new Error(`COVID-QA: an answer is not in its article: ${JSON.stringify(text)}`);
  return [best, best + text.length];
}

/**
 * Each passage's characters in the article: passages are the article's own text, in order, trimmed; the
 * blank space trimmed off between two goes with the one before it, so an answer across two sent passages
 * counts.
 */
function spansOf(context: string, passages: readonly Passage[]): [number, number][] {
  let cursor = 0;
  const starts = passages.map((p) => {
    const at = context.indexOf(p.text, cursor);
    if (at < 0) throw new Error(`passage ${p.n} is not in its article's text`);
    cursor = at + p.text.length;
    return at;
  });
  return starts.map((at, i) => [at, starts[i + 1] ?? context.length]);
}

/** Whether the sent spans cover every character of [from, to). */
function covered(sent: readonly [number, number][], from: number, to: number): boolean {
  let at = from;
  for (const [a, b] of [...sent].sort((x, y) => x[0] - y[0])) {
    if (a > at) break;
    at = Math.max(at, b);
  }
  return at >= to;
}

const sizeOf = (passages: readonly Passage[]) => passages.reduce((sum, p) => sum + p.text.length, 0);

export interface CovidQaResult {
  recall: number;
  share: number;
  questions: number;
  articles: number;
  /** Recall on the questions of odd index (looked at while changing the search) and even (held aside). */
  looked: number;
  heldAside: number;
  /**
   * Recall when each question may send passages up to a tenth of its article (the share P24 asks for), as
   * many as fit: not the app's limits, the trade-off at the goal's share, for the notes.
   */
  atTenth: { recall: number; share: number };
}

export async function covidQaRecall(): Promise<CovidQaResult> {
  const set = readSet();
  const library = createPassageLibrary(undefined);
  const hits = { looked: 0, heldAside: 0 };
  const counts = { looked: 0, heldAside: 0 };
  let shares = 0;
  const tenth = { hits: 0, shares: 0 };
  let index = 0;
  let articles = 0;
  for (const article of set.data) {
    for (const paragraph of article.paragraphs) {
      articles++;
      const { context } = paragraph;
      const attachment: TextAttachment = {
        id: `covidqa-${paragraph.document_id}`,
        name: `${paragraph.document_id}.md`,
        kind: 'markdown',
        mime: 'text/markdown',
        size: new TextEncoder().encode(context).length,
        blob: new Blob([]),
        text: context,
        encoding: 'utf-8',
      };
      const passages = splitPassages(attachment);
      const spans = spansOf(context, passages);
      const { search } = await library.indexFor(attachment);
      for (const qa of paragraph.qas) {
        const half = index++ % 2 === 1 ? 'looked' : 'heldAside';
        counts[half]++;
        const choice = choosePassages(search, passages, qa.question);
        const sent = choice.passages.map((p) => spans[p.n]!);
        if (qa.answers.some((a) => covered(sent, ...answerAt(context, a)))) hits[half]++;
        shares += sizeOf(choice.passages) / context.length;
        const narrow = choosePassages(search, passages, qa.question, {
          max: passages.length,
          budgetChars: context.length / 10,
        });
        const narrowSent = narrow.passages.map((p) => spans[p.n]!);
        if (qa.answers.some((a) => covered(narrowSent, ...answerAt(context, a)))) tenth.hits++;
        tenth.shares += sizeOf(narrow.passages) / context.length;
      }
    }
  }
  return {
    recall: (hits.looked + hits.heldAside) / index,
    share: shares / index,
    questions: index,
    articles,
    looked: hits.looked / counts.looked,
    heldAside: hits.heldAside / counts.heldAside,
    atTenth: { recall: tenth.hits / index, share: tenth.shares / index },
  };
}
