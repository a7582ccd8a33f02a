import { describe, expect, it } from 'vitest';
import {
  citedPassages,
  findCitations,
  firstLabels,
  type SentPassage,
  sentPassages,
  tokenPassages,
} from '../../../src/attachments/passage-cites.ts';

describe('findCitations', () => {
  it('reads passage labels and pages, as lists and ranges, where they are in the text', () => {
    const text =
      'Ninety days [p. 42], see [3] and [3, 5][2-3]; pages [pp. 12–13] or [page 7] or [Pages 1, 4].';
    const tokens = findCitations(text);
    expect(tokens.map((t) => t.text)).toEqual([
      '[p. 42]',
      '[3]',
      '[3, 5]',
      '[2-3]',
      '[pp. 12–13]',
      '[page 7]',
      '[Pages 1, 4]',
    ]);
    expect(tokens.map((t) => t.refs)).toEqual([
      [{ page: 42 }],
      [{ label: 3 }],
      [{ label: 3 }, { label: 5 }],
      [{ label: 2 }, { label: 3 }],
      [{ page: 12 }, { page: 13 }],
      [{ page: 7 }],
      [{ page: 1 }, { page: 4 }],
    ]);
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
  });

  it('leaves what is not a citation: words, links, zero, backward and huge ranges', () => {
    expect(findCitations('[note] [x1] [3](https://example.com) [0] [5-2] [pp. 1-9999] [p. ] [1.5]')).toEqual(
      [],
    );
  });
});

describe('labels and the passages a run sent', () => {
  it('numbers passages on from file to file, a file sent whole taking no label', () => {
    expect(firstLabels([2, 0, 3, 1])).toEqual([1, 3, 3, 6]);
    expect(firstLabels([])).toEqual([]);
  });

  const steps = [
    {
      index: 0,
      sent: [
        {
          id: 'pdf',
          name: 'contract.pdf',
          passages: [
            { n: 4, place: 'page 3' },
            { n: 40, place: 'page 42' },
            { n: 41, place: 'page 42' },
          ],
        },
        { id: 'whole', name: 'notes.txt' },
        { id: 'md', name: 'notes.md', passages: [{ n: 2, place: 'lines 10-20' }] },
      ],
    },
    { index: 1, sent: [{ id: 'pdf', name: 'contract.pdf', passages: [{ n: 9, place: 'page 10' }] }] },
    { index: 2 },
  ];
  const sent = sentPassages(steps);

  it('gives each sent passage the label its step’s message gave it, and a PDF’s its page', () => {
    expect(sent.map((p) => [p.step, p.label, p.file, p.n, p.page])).toEqual([
      [0, 1, 'pdf', 4, 3],
      [0, 2, 'pdf', 40, 42],
      [0, 3, 'pdf', 41, 42],
      [0, 4, 'md', 2, undefined],
      [1, 1, 'pdf', 9, 10],
    ]);
  });

  const keys = (found: SentPassage[]) => found.map((p) => `${p.step}:${p.file}#${p.n}`);

  it('matches a label in the answering step’s own passages only', () => {
    expect(keys(citedPassages({ label: 4 }, sent, 0))).toEqual(['0:md#2']);
    expect(keys(citedPassages({ label: 1 }, sent, 1))).toEqual(['1:pdf#9']);
    // Step 1 was sent one passage: its [4] names nothing, even though step 0 had a [4].
    expect(citedPassages({ label: 4 }, sent, 1)).toEqual([]);
  });

  it('looks for a label in every step when the answering step was sent no passages', () => {
    expect(keys(citedPassages({ label: 1 }, sent, 2))).toEqual(['0:pdf#4', '1:pdf#9']);
    expect(citedPassages({ label: 9 }, sent, 2)).toEqual([]);
  });

  it('matches a page with every passage of it, the step’s own first, else any step’s', () => {
    expect(keys(citedPassages({ page: 42 }, sent, 0))).toEqual(['0:pdf#40', '0:pdf#41']);
    expect(keys(citedPassages({ page: 42 }, sent, 1))).toEqual(['0:pdf#40', '0:pdf#41']);
    expect(keys(citedPassages({ page: 10 }, sent, 2))).toEqual(['1:pdf#9']);
    // A page nobody was sent stays text.
    expect(citedPassages({ page: 12 }, sent, 0)).toEqual([]);
  });

  it('joins what one citation lists, each passage once', () => {
    const [token] = findCitations('[1, 2, 3, 7]');
    expect(keys(tokenPassages(token!, sent, 0))).toEqual(['0:pdf#4', '0:pdf#40', '0:pdf#41']);
    const [pages] = findCitations('[pp. 41-43]');
    expect(keys(tokenPassages(pages!, sent, 0))).toEqual(['0:pdf#40', '0:pdf#41']);
  });

  it('takes no place a record does not say is a page as one', () => {
    const odd = sentPassages([
      { index: 0, sent: [{ id: 'x', name: 'x', passages: [{ n: 0, place: 'page 4 of 9' }] }] },
    ]);
    expect(citedPassages({ page: 4 }, odd, 0)).toEqual([]);
  });
});
