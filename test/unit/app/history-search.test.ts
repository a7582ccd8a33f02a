import { describe, expect, it } from 'vitest';
import { HistoryIndex } from '../../../src/app/history-search.ts';
import type { RunSummary } from '../../../src/records/runs-db.ts';

function summary(id: string, updatedAt: number, question: string, answer?: string): RunSummary {
  const s: RunSummary = {
    id,
    question,
    mode: 'conductor',
    status: 'done',
    createdAt: 0,
    updatedAt,
    steps: 1,
    cost: 0,
  };
  if (answer !== undefined) s.answer = answer;
  return s;
}

describe('history search index', () => {
  const index = new HistoryIndex([
    summary('a', 1, 'What is 2+2?', 'Four.'),
    summary('b', 3, 'Write a haiku about rain', 'Soft rain on the roof'),
    summary('c', 2, 'Compare the proposals', 'Both proposals agree.'),
  ]);

  it('finds runs by words (or parts of words) of the question or the answer, case-insensitively', () => {
    expect(index.search('HAIKU').map((s) => s.id)).toEqual(['b']);
    expect(index.search('agr').map((s) => s.id)).toEqual(['c']);
    expect(index.search('roposal').map((s) => s.id)).toEqual(['c']);
    expect(index.search('rain roof').map((s) => s.id)).toEqual(['b']);
    expect(index.search('rain agree')).toEqual([]);
    expect(index.search('nothing like this')).toEqual([]);
  });

  it('lists every run newest first for a blank query', () => {
    expect(index.search('  ').map((s) => s.id)).toEqual(['b', 'c', 'a']);
  });
});
