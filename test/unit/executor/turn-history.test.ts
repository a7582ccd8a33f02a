import { describe, expect, it } from 'vitest';
import { fitHistory, historyCutText, sentTurnsText } from '../../../src/executor/turn-history.ts';
import type { PastTurn } from '../../../src/records/thread-store.ts';

// One token per character: the arithmetic of the budget is then plain to read.
const chars = (text: string) => text.length;

const turns: PastTurn[] = [
  { question: 'q1', answer: 'a'.repeat(100) },
  { question: 'q2', answer: 'b'.repeat(100) },
  { question: 'q3', answer: 'c'.repeat(100) },
];
/** A turn's cost under `chars`: question + answer + 3 tokens of chat format for each. */
const TURN = 2 + 3 + 100 + 3;

describe('fitHistory', () => {
  it('sends every turn, oldest first, as question/answer pairs when they fit', () => {
    const fitted = fitHistory(turns, 10_000, chars);
    expect(fitted.messages.map((m) => [m.role, m.content.slice(0, 2)])).toEqual([
      ['user', 'q1'],
      ['assistant', 'aa'],
      ['user', 'q2'],
      ['assistant', 'bb'],
      ['user', 'q3'],
      ['assistant', 'cc'],
    ]);
    expect(fitted.history).toEqual({
      kept: 3,
      cut: 0,
      budgetTokens: 10_000,
      tokens: 3 * TURN,
      turns: [
        { turn: 0, why: 'recent' },
        { turn: 1, why: 'recent' },
        { turn: 2, why: 'newest' },
      ],
    });
    expect(sentTurnsText(fitted.history)).toBe('turns 1, 2 (recent), 3 (newest)');
    expect(historyCutText(fitted.history)).toBeUndefined();
  });

  it('keeps the newest turns first and drops the oldest, saying how many and why', () => {
    const fitted = fitHistory(turns, 2 * TURN + 10, chars);
    expect(fitted.messages.map((m) => m.content.slice(0, 2))).toEqual(['q2', 'bb', 'q3', 'cc']);
    expect(fitted.history).toMatchObject({ kept: 2, cut: 1 });
    expect(historyCutText(fitted.history)).toBe(
      "1 earlier turn was left out (the oldest): this worker's history is limited to 226 tokens (Settings → Planning).",
    );
  });

  it('cuts the newest answer in the middle when even it does not fit, and never leaves a gap', () => {
    const long: PastTurn[] = [...turns, { question: 'q4', answer: `start ${'x'.repeat(2000)} end` }];
    const fitted = fitHistory(long, 400, chars);
    expect(fitted.messages).toHaveLength(2);
    const answer = fitted.messages[1]?.content ?? '';
    expect(answer.startsWith('start')).toBe(true);
    expect(answer.endsWith('end')).toBe(true);
    expect(answer).toContain('characters cut');
    expect(fitted.history).toMatchObject({ kept: 1, cut: 3, shortened: true });
    expect(fitted.history?.tokens).toBeLessThanOrEqual(400);
    expect(historyCutText(fitted.history)).toMatch(
      /^3 earlier turns were left out \(the oldest\) and the last turn's answer was cut in the middle/,
    );
  });

  it('leaves out turns without an answer, and sends nothing when there is nothing to send', () => {
    const fitted = fitHistory([{ question: 'failed' }, ...turns.slice(0, 1)], 10_000, chars);
    expect(fitted.messages.map((m) => m.content.slice(0, 2))).toEqual(['q1', 'aa']);
    expect(fitHistory([], 100, chars)).toEqual({ messages: [] });
    expect(fitHistory(turns, 0, chars).history).toMatchObject({ kept: 0, cut: 3 });
  });
});
