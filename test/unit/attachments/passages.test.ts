import { describe, expect, it } from 'vitest';
import { PASSAGE_MAX_CHARS, splitPassages } from '../../../src/attachments/passages.ts';
import type { PdfAttachment, TextAttachment } from '../../../src/attachments/types.ts';

const base = { id: 'h', size: 10, blob: new Blob([]) };
const text = (kind: TextAttachment['kind'], body: string): TextAttachment => ({
  ...base,
  name: `f.${kind}`,
  kind,
  mime: 'text/plain',
  text: body,
  encoding: 'utf-8',
});

describe('splitPassages', () => {
  it("keeps a PDF's page on every piece of it, a long page in several pieces within the maximum", () => {
    const long = Array.from({ length: 60 }, (_, i) => `Line ${i} of a long page, with some words.`).join(
      '\n',
    );
    const pdf: PdfAttachment = {
      ...base,
      name: 'c.pdf',
      kind: 'pdf',
      mime: 'application/pdf',
      pages: ['Cover', '', long],
      pagesWithoutText: [2],
    };
    const passages = splitPassages(pdf);
    expect(passages[0]).toMatchObject({ n: 0, place: 'page 1', page: 1, text: 'Cover' });
    const third = passages.filter((p) => p.page === 3);
    expect(third.length).toBeGreaterThan(1);
    expect(third.every((p) => p.place === 'page 3' && p.text.length <= PASSAGE_MAX_CHARS)).toBe(true);
    // Nothing of the page is lost or doubled.
    expect(third.map((p) => p.text).join('\n')).toBe(long);
    expect(passages.map((p) => p.n)).toEqual(passages.map((_, i) => i));
  });

  it('starts a Markdown passage at each heading and names the heading and line range', () => {
    const md =
      '# Terms\nIntro line.\n\n## Termination\nEither party may end it.\nWith notice.\n## Fees\nPaid monthly.';
    const passages = splitPassages(text('markdown', md));
    expect(passages.map((p) => [p.place, p.heading])).toEqual([
      ['lines 1-3', 'Terms'],
      ['lines 4-6', 'Termination'],
      ['lines 7-8', 'Fees'],
    ]);
    expect(passages[1]?.text).toBe('## Termination\nEither party may end it.\nWith notice.');
  });

  it('counts lines of a file with Windows line ends as any other, and cuts a line longer than the maximum', () => {
    const passages = splitPassages(text('json', `{\r\n"a": "${'x'.repeat(PASSAGE_MAX_CHARS * 2)}"\r\n}`));
    expect(passages.filter((p) => p.place === 'line 2').length).toBeGreaterThanOrEqual(2);
    expect(passages.every((p) => p.text.length <= PASSAGE_MAX_CHARS)).toBe(true);
  });

  it('cuts a paragraph written on one line at the end of a sentence, so no sentence is split between passages', () => {
    // A scientific article's paragraph is often one line of several thousand characters (COVID-QA, bench P24).
    const sentences = Array.from(
      { length: 60 },
      (_, i) => `Sentence ${i} reports that cohort ${i} showed a ${i + 3}-fold rise in antibody titres.`,
    );
    const paragraph = sentences.join(' ');
    const passages = splitPassages(text('text', `Title\n\n${paragraph}\n\nEnd.`));
    const pieces = passages.filter((p) => p.place === 'line 3');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.text.length <= PASSAGE_MAX_CHARS)).toBe(true);
    for (const sentence of sentences) {
      expect(pieces.filter((p) => p.text.includes(sentence))).toHaveLength(1);
    }
    // Nothing of the line is lost: the pieces are the line again, between sentences.
    expect(pieces.map((p) => p.text).join(' ')).toBe(paragraph);
  });

  it("gives a CSV's rows in ranges, each passage with the header row", () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${i + 1},item number ${i + 1},${i * 3}`);
    const passages = splitPassages(text('csv', ['id,name,price', ...rows].join('\n')));
    expect(passages.length).toBeGreaterThan(1);
    expect(passages[0]?.place).toMatch(/^rows 1-\d+$/);
    expect(passages.every((p) => p.text.startsWith('id,name,price\n'))).toBe(true);
    const last = passages.at(-1);
    expect(last?.rows?.[1]).toBe(200);
    expect(last?.text.endsWith('200,item number 200,597')).toBe(true);
  });
});
