import { describe, expect, it } from 'vitest';
import {
  buildPassageIndex,
  choosePassages,
  loadPassageIndex,
} from '../../../src/attachments/passage-index.ts';
import { splitPassages } from '../../../src/attachments/passages.ts';
import { pdfAttachment } from '../../fixtures/attachments.ts';
import { CLAUSE_7_ANSWER, CLAUSE_7_PAGE, contractPages } from '../../fixtures/contract.ts';

async function contract() {
  const pdf = await pdfAttachment('contract.pdf', contractPages(100));
  const passages = splitPassages(pdf);
  return { pdf, passages, search: await buildPassageIndex(passages) };
}

describe('choosePassages', () => {
  it('finds the page that answers, sends a small share of the file, in the file’s order', async () => {
    const { pdf, passages, search } = await contract();
    const choice = choosePassages(search, passages, 'termination notice period');
    expect(choice.weak).toBe(false);
    expect(choice.passages.some((p) => p.page === CLAUSE_7_PAGE && p.text.includes(CLAUSE_7_ANSWER))).toBe(
      true,
    );
    const sent = choice.passages.reduce((n, p) => n + p.text.length, 0);
    expect(sent / pdf.pages.join('').length).toBeLessThan(0.1);
    expect(choice.passages.map((p) => p.n)).toEqual(
      [...choice.passages.map((p) => p.n)].sort((a, b) => a - b),
    );
  });

  it('finds a place a one-digit number names: "schedule 3" is not any schedule', async () => {
    // Pages alike but for their schedule's number: only the digit tells them apart.
    const pages = Array.from(
      { length: 9 },
      (_, i) => `Schedule ${i + 1}. The goods of schedule ${i + 1} go to the warehouse.`,
    );
    const pdf = await pdfAttachment('schedules.pdf', pages);
    const passages = splitPassages(pdf);
    const search = await buildPassageIndex(passages);
    for (const n of [3, 7]) {
      const choice = choosePassages(search, passages, `Where do the goods of schedule ${n} go?`, { max: 1 });
      expect(choice.passages.map((p) => p.page)).toEqual([n]);
    }
  });

  it('sends the first passages anyway when nothing matches, and says the match was weak', async () => {
    const { passages, search } = await contract();
    const choice = choosePassages(search, passages, 'zebra xylophone');
    expect(choice.weak).toBe(true);
    expect(choice.unmatched).toBe(true);
    expect(choice.passages.length).toBeGreaterThan(0);
    expect(choice.passages[0]?.n).toBe(0);
    // A weak match is still a match: the step prefers it to the first passages (executor/step-files.ts).
    const weak = choosePassages(search, passages, 'zebra xylophone termination');
    expect(weak.weak).toBe(true);
    expect(weak.unmatched).toBeUndefined();
    expect(weak.passages.some((p) => p.page === CLAUSE_7_PAGE)).toBe(true);
  });

  it('reads back a stored index that answers as the one built', async () => {
    const { passages, search } = await contract();
    const again = await loadPassageIndex(JSON.stringify(search));
    expect(choosePassages(again, passages, 'What does clause 7 say?')).toEqual(
      choosePassages(search, passages, 'What does clause 7 say?'),
    );
  });
});
