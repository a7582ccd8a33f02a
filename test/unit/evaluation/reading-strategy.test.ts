import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchFromForm } from '../../../src/app/bench/bench-form.ts';
import type { PdfAttachment } from '../../../src/attachments/types.ts';
import { runBench } from '../../../src/evaluation/bench-runner.ts';
import { READING_NEEDS_DOCUMENT, type Strategy } from '../../../src/evaluation/strategies.ts';
import { compareReadingPairs, summarize } from '../../../src/evaluation/summary.ts';
import type { Task } from '../../../src/evaluation/taskset.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { CLAUSE_7_ANSWER, contractPages } from '../../fixtures/contract.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A 60-page contract: clause 7 (the notice period) on page 42, and a signature on page 9 written in words
// the question does not use, so a lexical search for the question does not find it.
const PAGES = contractPages(60);
PAGES[8] = `${PAGES[8]}\nExecuted for the supplier by Ada Lovelace.`;
const SIGNER = 'Ada Lovelace';
const DOCUMENT: PdfAttachment = {
  id: 'contract-hash',
  name: 'contract.pdf',
  kind: 'pdf',
  mime: 'application/pdf',
  size: PAGES.join('\n').length,
  blob: new Blob([]),
  pages: PAGES,
  pagesWithoutText: [],
};

const TASKS: Task[] = [
  { id: 'notice', kind: 'exact', question: 'How much notice ends the agreement?', answer: CLAUSE_7_ANSWER },
  { id: 'signer', kind: 'exact', question: 'Whose signature closes the deal?', answer: SIGNER },
];

/** A model that answers only from what its request carries: the answer when the text holding it came. */
function readerAnswer(body: Record<string, unknown>): string {
  const text = JSON.stringify(body.messages);
  if (text.includes('notice ends') && text.includes(CLAUSE_7_ANSWER)) return `Answer: ${CLAUSE_7_ANSWER}`;
  if (text.includes('signature') && text.includes(SIGNER)) return `Answer: ${SIGNER}`;
  return 'Answer: the document does not say';
}

const reading = (as: 'whole' | 'passages'): Strategy => ({
  id: `reading:${as}:reader`,
  label: as,
  config: { kind: 'reading', worker: 'reader', as },
});

let provider: TestProvider;
let pool: WorkerSpec[];
const transport = createOpenAITransport({ fetch: directFetch });

beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [{ id: 'reader', behaviour: { kind: 'request', fn: readerAnswer } }],
  });
  pool = [
    workerSpec({
      id: 'reader',
      baseURL: provider.baseURL,
      model: 'reader',
      price: { inputPerM: 1, outputPerM: 2 },
    }),
  ];
});
afterAll(() => provider.close());

describe('the reading pair: the document whole against its passages', () => {
  it('sends the passages run fewer document bytes than the whole run, and scores both', async () => {
    provider.clearRequests();
    const strategies = [reading('whole'), reading('passages')];
    const results = await runBench({ tasks: TASKS, strategies, pool, transport, document: DOCUMENT })
      .finished;
    expect(results).toHaveLength(4);
    const item = (strategy: string, task: string) =>
      results.find((r) => r.strategyId === `reading:${strategy}:reader` && r.taskId === task)!;
    // Both scored: the whole document holds both answers; the passages hold clause 7 but not the signature.
    for (const r of results) expect(r.status).toBe('done');
    expect(item('whole', 'notice').correct).toBe(true);
    expect(item('whole', 'signer').correct).toBe(true);
    expect(item('passages', 'notice').correct).toBe(true);
    expect(item('passages', 'signer').correct).toBe(false);

    // What each request carried of the document, by the provider's own log.
    const bodies = provider.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => JSON.stringify(r.body));
    const whole = bodies.filter((b) => b.includes('Page 30 of 60.'));
    const passages = bodies.filter((b) => !b.includes('Page 30 of 60.'));
    expect(whole).toHaveLength(2);
    expect(passages).toHaveLength(2);
    for (const b of passages) expect(b.length * 5).toBeLessThan(Math.min(...whole.map((w) => w.length)));

    // The items say so too, and the summary and the pair comparison read them.
    for (const task of ['notice', 'signer']) {
      expect(item('whole', task).documentBytes).toBeGreaterThanOrEqual(DOCUMENT.size);
      expect(item('passages', task).documentBytes! * 5).toBeLessThan(item('whole', task).documentBytes!);
      expect(item('passages', task).promptTokens).toBeLessThan(item('whole', task).promptTokens);
      expect(item('passages', task).cost).toBeLessThan(item('whole', task).cost);
    }
    const summaries = summarize(results);
    const wholeSummary = summaries.find((s) => s.strategyId === 'reading:whole:reader');
    const passagesSummary = summaries.find((s) => s.strategyId === 'reading:passages:reader');
    expect(passagesSummary!.accuracy).toBe(0.5);
    expect(wholeSummary!.accuracy).toBe(1);
    expect(passagesSummary!.documentBytesPerItem! * 5).toBeLessThan(wholeSummary!.documentBytesPerItem!);
    const pair = compareReadingPairs(results, strategies).get('reading:passages:reader');
    expect(pair).toMatchObject({ items: 2, wins: 0, losses: 1 });
  });

  it('fails a reading item without a document, saying so, and gives other strategies no document', async () => {
    provider.clearRequests();
    const [failed] = await runBench({
      tasks: TASKS.slice(0, 1),
      strategies: [reading('whole')],
      pool,
      transport,
    }).finished;
    expect(failed).toMatchObject({ status: 'failed', error: READING_NEEDS_DOCUMENT });
    expect(provider.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0);

    const single: Strategy = { id: 'single', label: 'single', config: { kind: 'single', worker: 'reader' } };
    const [plain] = await runBench({
      tasks: TASKS.slice(0, 1),
      strategies: [single],
      pool,
      transport,
      document: DOCUMENT,
    }).finished;
    expect(plain!.documentBytes).toBeUndefined();
    expect(JSON.stringify(provider.requests.at(-1)!.body)).not.toContain('Page 1 of 60.');
  });

  it('will not start a bench with a reading strategy and no document', () => {
    const form = { name: 'b', tasks: TASKS, concurrency: '1', spendCap: '' };
    expect(benchFromForm({ ...form, strategies: [reading('passages')] }, { pool })).toEqual({
      ok: false,
      problem: READING_NEEDS_DOCUMENT,
    });
    const made = benchFromForm({ ...form, strategies: [reading('passages')], document: DOCUMENT }, { pool });
    expect(made.ok && made.record.document?.id).toBe('contract-hash');
  });
});
