// Local reading (issue 40): how much of a document a step sends as passages, whether the passages hold
// the answer, and whether indexing a long document holds up the thread that does it.
//
// P24 runs on a published question-answering set with answer spans, COVID-QA (passages-covidqa.ts says
// how; bench/data/README.md where the set comes from and its licence). SQuAD is kept aside for an outside
// check. Half of its questions are held aside: changes to the search were made looking only at the questions
// of odd index, and the notes give each half, so a change fitted to the questions looked at would show as a
// gap between the two.
//
// The set made here before COVID-QA could be had is kept as p24-made-here-recall: a 100-page contract
// (test/fixtures/contract.ts) and one question per page whose answer span is on that page. It suits
// lexical search better than real questions do: it checks that the search still finds a place named by
// number ("schedule 3"), not how well it reads.

import { choosePassages } from '../src/attachments/passage-index.ts';
import { createPassageLibrary } from '../src/attachments/passage-store.ts';
import { MAX_PASSAGES, PASSAGE_BUDGET_CHARS, splitPassages } from '../src/attachments/passages.ts';
import type { PdfAttachment } from '../src/attachments/types.ts';
import { chooseStepFiles, promptTokensOf, withStepFiles } from '../src/executor/step-files.ts';
import { CLAUSE_7_ANSWER, contractPages } from '../test/fixtures/contract.ts';
import { type CovidQaResult, covidQaRecall } from './passages-covidqa.ts';
import { round } from './stats.ts';
import type { Benchmark } from './types.ts';

const PAGES = 100;

function contractPdf(pages: readonly string[], id = 'contract'): PdfAttachment {
  return {
    id,
    name: 'contract.pdf',
    kind: 'pdf',
    mime: 'application/pdf',
    size: pages.join('\n').length,
    blob: new Blob([]),
    pages: [...pages],
    pagesWithoutText: [],
  };
}

interface Item {
  question: string;
  /** The gold answer span, as it is written in the document. */
  answer: string;
}

/** One question per page: the lot an item of a schedule applies to (the span is on that page alone). */
function items(): Item[] {
  const list: Item[] = [];
  for (let n = 1; n <= PAGES; n++) {
    if (n === 42) {
      list.push({ question: 'How much notice ends the agreement?', answer: CLAUSE_7_ANSWER });
      continue;
    }
    const line = (n * 7) % 12;
    list.push({
      question: `Item ${line + 1} of schedule ${n}: which lot does it concern?`,
      answer: `${n}.${line + 1} In respect of`,
    });
  }
  return list;
}

interface Recall {
  recall: number;
  share: number;
  n: number;
  /** Recall on the questions of odd pages (looked at while changing the search) and of even ones (held aside). */
  looked: number;
  heldAside: number;
}

async function readingRecall(): Promise<Recall> {
  const pages = contractPages(PAGES);
  const pdf = contractPdf(pages);
  const passages = splitPassages(pdf);
  const { search } = await createPassageLibrary(undefined).indexFor(pdf);
  const whole = pages.join('\n').length;
  const hits = { odd: 0, even: 0 };
  let sent = 0;
  const set = items();
  set.forEach((item, i) => {
    const choice = choosePassages(search, passages, item.question);
    if (choice.passages.some((p) => p.text.includes(item.answer))) hits[i % 2 === 0 ? 'odd' : 'even']++;
    sent += choice.passages.reduce((sum, p) => sum + p.text.length, 0);
  });
  const half = set.length / 2;
  return {
    recall: (hits.odd + hits.even) / set.length,
    share: sent / set.length / whole,
    n: set.length,
    looked: hits.odd / half,
    heldAside: hits.even / half,
  };
}

const halves = (r: { looked: number; heldAside: number }, looked: string, aside: string) =>
  `${looked} (looked at) ${round(r.looked)}, ${aside} (held aside) ${round(r.heldAside)}`;

/** Both P24 figures come from one pass over the set. */
let covidQa: Promise<CovidQaResult> | undefined;
const covidQaOnce = () => {
  covidQa ??= covidQaRecall();
  return covidQa;
};

const COVID_QA = (r: CovidQaResult) =>
  `COVID-QA (deepset, Möller et al. 2020, Apache-2.0; CORD-19 articles): ${r.questions} questions over ${r.articles} articles, each article a Markdown file read as passages (lexical, MiniSearch)`;

export const benchmarks: Benchmark[] = [
  {
    id: 'p24-passage-recall',
    title: 'P24: share of COVID-QA questions whose sent passages hold the gold answer span',
    async run() {
      const r = await covidQaOnce();
      return {
        value: round(r.recall),
        goal: 0.97,
        unit: 'share',
        better: 'higher',
        notes:
          `${COVID_QA(r)}; ${halves(r, 'odd questions', 'even')}; ${round(r.share * 100)} % of an article's characters sent per question` +
          ` at the app's limits (${MAX_PASSAGES} passages, ${PASSAGE_BUDGET_CHARS} characters); up to a tenth of each article instead: recall ${round(r.atTenth.recall)} at ${round(r.atTenth.share * 100)} %`,
      };
    },
  },
  {
    id: 'p24-share-sent',
    title: "P24: share of an article's characters a COVID-QA question's passages send",
    async run() {
      const r = await covidQaOnce();
      return {
        value: round(r.share),
        goal: 0.1,
        unit: 'share',
        better: 'lower',
        notes: `${COVID_QA(r)}; averaged over questions`,
      };
    },
  },
  {
    id: 'p24-made-here-recall',
    title: 'P24 (made-here set): questions about a 100-page contract whose sent passages hold the answer',
    async run() {
      const r = await readingRecall();
      return {
        value: round(r.recall),
        goal: 0.97,
        unit: 'share',
        better: 'higher',
        notes: `${r.n} questions, one per page (${halves(r, 'odd pages', 'even pages')}); ${round(r.share * 100)} % of the document's characters sent per question`,
      };
    },
  },
  {
    id: 'p25-reading-tokens',
    title: 'P25: input tokens of a question about a 100-page PDF, as passages ÷ whole',
    async run() {
      const pdf = contractPdf(contractPages(PAGES));
      const messages = [{ role: 'user' as const, content: 'What does clause 7 say?' }];
      const tokensOf = async (files: Parameters<typeof chooseStepFiles>[0]['files']) =>
        promptTokensOf(
          withStepFiles(
            messages,
            await chooseStepFiles({ files, task: 'What does clause 7 say?' }, 0, [pdf]),
          ),
          'gpt-4o',
        );
      const whole = await tokensOf([0]);
      const passages = await tokensOf([{ file: 0, find: 'clause 7 termination notice' }]);
      return {
        value: round(passages / whole),
        goal: 0.1,
        unit: 'ratio',
        better: 'lower',
        notes: `${passages} tokens as passages, ${whole} whole (the request's text by the project's estimator)`,
      };
    },
  },
  {
    id: 'p26-index-main-thread',
    title: 'P26: longest task of the thread that indexes a 100-page PDF (split and MiniSearch, in chunks)',
    async run() {
      const pdf = contractPdf(contractPages(PAGES), `p26-${Date.now()}`);
      // The thread's tasks: the time between two turns of its event loop, in CPU time (what the work
      // itself cost, whatever else the machine ran) and in wall time.
      let longestCpu = 0;
      let longestWall = 0;
      let turns = 0;
      let running = true;
      let lastWall = performance.now();
      let lastCpu = process.cpuUsage();
      const tick = () => {
        const wall = performance.now();
        const cpu = process.cpuUsage(lastCpu);
        longestWall = Math.max(longestWall, wall - lastWall);
        longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000);
        lastWall = wall;
        lastCpu = process.cpuUsage();
        turns++;
        if (running) setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
      await createPassageLibrary(undefined).indexFor(pdf);
      running = false;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {
        value: round(longestCpu),
        goal: 50,
        unit: 'ms',
        better: 'lower',
        notes:
          `in Node, the longest gap between two turns of the indexing thread's event loop, in CPU time` +
          ` (wall ${round(longestWall)} ms; ${turns} turns); the page runs the same code the same way`,
      };
    },
  },
];
