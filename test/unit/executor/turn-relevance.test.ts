import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { fitHistory, historyCutText, sentTurnsText } from '../../../src/executor/turn-history.ts';
import { rankTurns } from '../../../src/executor/turn-relevance.ts';
import type { PastTurn } from '../../../src/records/thread-store.ts';
import { estimateTokens } from '../../../src/shared/token-estimate.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  // A short fixed answer: what is checked is what was sent.
  provider = await startProvider({ models: [{ id: 'noted', behaviour: { kind: 'fixed', text: 'Noted.' } }] });
});
afterAll(async () => {
  await provider.close();
});

// One token per character: the arithmetic of the budget is then plain to read.
const chars = (text: string) => text.length;

const TOPICS = [
  'Plan a garden with tomatoes and basil.',
  'Translate good morning into Portuguese.',
  'Which contract clause governs the termination notice period?',
  'Suggest a name for a grey kitten.',
  'How do I boil an egg?',
  'Summarise the plot of Moby Dick.',
  'Convert 30 Celsius to Fahrenheit.',
  'Recommend a jazz album from 1959.',
  'Explain photosynthesis to a child.',
  'List three uses of baking soda.',
  'Write a haiku about rain.',
  'What rhymes with orange?',
];

/** A thread of 12 turns (numbered 0-11 as stored), turn 3 (index 2) the only one about termination. */
const thread: PastTurn[] = TOPICS.map((question, i) => ({
  // Every turn the same size (100 + 100 characters, 206 tokens with the chat format's): the budget counts turns.
  question: question.padEnd(100),
  turn: i,
  answer: (i === 2
    ? 'Clause 14: the termination notice is ninety days, in writing.'
    : `About that: ${question.toLowerCase()}`
  ).padEnd(100),
}));
/** Room for three turns of the thread, not four. */
const THREE_TURNS = 3 * 206 + 100;
const asked = (messages: { role: string; content: string }[]) =>
  messages.filter((m) => m.role === 'user').map((m) => m.content.trim());

describe('earlier turns chosen by relevance', () => {
  it('sends the turn the follow-up asks about and the newest, in their order, not only the last three', async () => {
    const question = 'Remind me: how long was the termination notice?';
    const ranking = await rankTurns(thread, question);
    const fitted = fitHistory(thread, THREE_TURNS, chars, ranking);
    const questions = asked(fitted.messages);
    // Turn 3 went, in its place before the newer ones; the newest went; the rest of the room went to the most recent.
    expect(questions).toEqual([TOPICS[2], TOPICS[10], TOPICS[11]]);
    expect(fitted.messages[1]?.content).toContain('ninety days');
    // Newest first without the question: the last three only, as before.
    const newestFirst = fitHistory(thread, THREE_TURNS, chars);
    expect(asked(newestFirst.messages)).toEqual(TOPICS.slice(9));

    expect(fitted.history).toMatchObject({ kept: 3, cut: 9 });
    expect(fitted.history?.turns).toEqual([
      { turn: 2, why: 'matched', terms: ['termination', 'notice'] },
      { turn: 10, why: 'recent' },
      { turn: 11, why: 'newest' },
    ]);
    expect(sentTurnsText(fitted.history)).toBe(
      "turns 3 (matched 'termination', 'notice'), 11 (recent), 12 (newest)",
    );
    expect(historyCutText(fitted.history)).toMatch(
      /^9 earlier turns were left out \(older, and less related to the question\): this worker's history is limited to/,
    );
  });

  it('falls back to the newest turns when nothing matches the question ("and why?")', async () => {
    for (const question of ['And why?', 'zyzzyva quokka']) {
      const fitted = fitHistory(thread, THREE_TURNS, chars, await rankTurns(thread, question));
      expect(fitted).toEqual(fitHistory(thread, THREE_TURNS, chars));
      expect(sentTurnsText(fitted.history)).toBe('turns 10, 11 (recent), 12 (newest)');
      expect(historyCutText(fitted.history)).toMatch(/^9 earlier turns were left out \(the oldest\)/);
    }
  });

  it('passes over a matching turn too long for the room and takes the next one that fits', async () => {
    const turns: PastTurn[] = [
      { question: 'Tell me about otters.', answer: `Otters ${'x'.repeat(500)}` },
      { question: 'And otters in rivers?', answer: 'River otters hunt at night.' },
      { question: 'Something else.', answer: 'Yes.' },
      { question: 'Newest.', answer: 'Done.' },
    ];
    const fitted = fitHistory(turns, 120, chars, await rankTurns(turns, 'otters'));
    expect(fitted.history?.turns).toEqual([
      { turn: 1, why: 'matched', terms: ['otters'] },
      { turn: 2, why: 'recent' },
      { turn: 3, why: 'newest' },
    ]);
  });

  it('keeps choosing linear in a 1,000-turn thread: each turn is counted once, whatever the budget', async () => {
    const long: PastTurn[] = Array.from({ length: 1000 }, (_, i) => ({
      question: `Question ${i} about topic${i}?`,
      turn: i,
      answer: i === 4 ? 'The lighthouse keeper was named Abernathy.' : `Answer ${i} on topic${i}.`,
    }));
    const ranking = await rankTurns(long, 'Who was the lighthouse keeper?');
    // Every answered turn once in the order: a permutation, the newest first, the match next.
    expect(ranking.order).toHaveLength(1000);
    expect(new Set(ranking.order).size).toBe(1000);
    expect(ranking.order.slice(0, 2)).toEqual([999, 4]);
    for (const budget of [200, 5_000, 1_000_000]) {
      let counted = 0;
      const counting = (text: string) => {
        counted += 1;
        return text.length;
      };
      const fitted = fitHistory(long, budget, counting, ranking);
      expect(fitted.history?.turns?.find((t) => t.turn === 4)).toEqual({
        turn: 4,
        why: 'matched',
        terms: ['lighthouse', 'keeper'],
      });
      // A question and an answer per turn offered, at most: 2,000 for the whole thread, never a turn per turn.
      expect(counted).toBeLessThanOrEqual(2 * long.length);
    }
  });
});

describe('a follow-up over the real executor and the test provider', () => {
  it('sends each worker the turns chosen for the question within its own budget, and records them on the step', async () => {
    const perTurn = estimateTokens(thread[0]?.question ?? '') + estimateTokens(thread[0]?.answer ?? '') + 6;
    const budgets: Record<string, number> = { a: 3 * perTurn + Math.floor(perTurn / 2), b: 100_000 };
    const question = 'Remind me: how long was the termination notice?';
    const egress = createEgress({
      vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
      ledger: await openLedger('turn-relevance'),
    });
    provider.clearRequests();
    const { result } = startRun({
      question,
      pool: ['a', 'b'].map((id) => workerSpec({ id, baseURL: provider.baseURL, model: 'noted' })),
      transport: chatTransports(egress),
      history: { turns: thread, budgetFor: (worker) => budgets[worker.id] ?? 0 },
      plan: {
        steps: [
          { worker: 'a', task: 'Answer from the thread.', sees: [] },
          { worker: 'b', task: 'Check it.', sees: [] },
        ],
      },
    });
    const done = await result;
    expect(done.status).toBe('done');
    const bodies = provider.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'))
      .map((r) => (r.body as { messages: { role: string; content: string }[] }).messages);
    const toA = bodies.find((m) => m.at(-1)?.content === 'Answer from the thread.') ?? [];
    const toB = bodies.find((m) => m.at(-1)?.content === 'Check it.') ?? [];
    // Worker a: turn 3 (the one asked about) and the two newest, each question then its answer, then the question.
    expect(toA.map((m) => [m.role, m.content.trim()])).toEqual([
      ['user', TOPICS[2]],
      ['assistant', thread[2]?.answer?.trim()],
      ['user', TOPICS[10]],
      ['assistant', thread[10]?.answer?.trim()],
      ['user', TOPICS[11]],
      ['assistant', thread[11]?.answer?.trim()],
      ['user', question],
      ['user', 'Answer from the thread.'],
    ]);
    // Worker b's budget holds them all: every turn, in the thread's order.
    expect(asked(toB).slice(0, 12)).toEqual(TOPICS);
    // What each step records (and its card says) is what its worker received.
    expect(done.steps[0]?.history?.turns?.map((t) => [t.turn, t.why])).toEqual([
      [2, 'matched'],
      [10, 'recent'],
      [11, 'newest'],
    ]);
    expect(done.steps[1]?.history).toMatchObject({ kept: 12, cut: 0 });
  });

  it('uses the ranking the history comes with (made for the question when it was estimated), not a second one', async () => {
    const egress = createEgress({
      vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
      ledger: await openLedger('turn-relevance-given'),
    });
    provider.clearRequests();
    const perTurn = estimateTokens(thread[0]?.question ?? '') + estimateTokens(thread[0]?.answer ?? '') + 6;
    // Ranked as the estimate ranked it; a ranking made again would put turn 3 (index 2) first instead.
    const ranking = { order: [5, 11, 10, 9, 8, 7, 6, 4, 3, 2, 1, 0], matched: new Map([[5, ['plot']]]) };
    const { result } = startRun({
      question: 'Remind me: how long was the termination notice?',
      pool: [workerSpec({ id: 'a', baseURL: provider.baseURL, model: 'noted' })],
      transport: chatTransports(egress),
      history: { turns: thread, budgetFor: () => 3 * perTurn + Math.floor(perTurn / 2), ranking },
      plan: { steps: [{ worker: 'a', task: 'Answer from the thread.', sees: [] }] },
    });
    const done = await result;
    expect(done.steps[0]?.history?.turns?.map((t) => [t.turn, t.why])).toEqual([
      [5, 'matched'],
      [10, 'recent'],
      [11, 'newest'],
    ]);
  });
});
