/**
 * extractPdfText against pdf.js itself (its legacy build, which runs in node with its worker in-process),
 * on PDFs written by test/fixtures/pdf-writer.ts: so these also prove the fixtures are valid PDFs. The
 * page runs the same function in the PDF reader's thread (test/browser/attachments-files.spec.ts).
 */
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import {
  extractPdfText,
  type PdfFailureCode,
  type PdfPageRead,
  type PdfTextResult,
  pageText,
} from '../../../src/shared/pdf-text.ts';
import {
  deeplyNestedPdf,
  emptyPagesPdf,
  encryptedPdf,
  expandingPdf,
  manyPagesLines,
  manyPagesPdf,
  scannedPdf,
  textPdf,
  writePdf,
} from '../../fixtures/pdf-writer.ts';

/** The failure a read ended with (the test fails if it read the PDF). */
function failure(result: PdfTextResult): { code: PdfFailureCode; message: string } {
  if (result.ok) throw new Error('the PDF was read');
  return { code: result.code, message: result.message };
}

describe('extractPdfText', () => {
  it("reads each page's text in order, lines as lines, with parentheses and backslashes intact", async () => {
    const pdf = textPdf([['Quarterly report (draft)', 'Revenue: 120 \\ 95 units'], ['Second page.']]);
    expect(await extractPdfText(pdfjs, 'report.pdf', pdf)).toEqual({
      ok: true,
      pages: ['Quarterly report (draft)\nRevenue: 120 \\ 95 units', 'Second page.'],
      pagesWithoutText: [],
    });
  });

  it('reads a 100-page PDF, saying page n of N after each page', async () => {
    const progress: PdfPageRead[] = [];
    const read = await extractPdfText(pdfjs, 'long.pdf', manyPagesPdf(100), {
      onProgress: (p) => progress.push(p),
    });
    const pages = read.ok ? read.pages : [];
    expect(pages).toHaveLength(100);
    expect(pages[0]).toBe(manyPagesLines(1, 100).join('\n'));
    expect(pages[99]).toBe(manyPagesLines(100, 100).join('\n'));
    expect(progress.map(({ page, pages: of }) => [page, of])).toEqual(
      Array.from({ length: 100 }, (_, i) => [i + 1, 100]),
    );
    expect(progress.map((p) => p.text)).toEqual(pages);
  }, 60_000);

  it('says "no text layer" for a scanned PDF, whose pages are only images', async () => {
    const error = failure(await extractPdfText(pdfjs, 'scan.pdf', scannedPdf()));
    expect(error.code).toBe('pdf-no-text');
    expect(error.message).toContain('"scan.pdf" has no text layer');
    expect(error.message).toContain('2 pages are pictures');
  });

  it('keeps the text of a PDF with some scanned pages, and names the pages without text', async () => {
    const pdf = writePdf([
      { lines: ['Cover letter.'] },
      { image: { width: 8, height: 8 } },
      { lines: ['Annex.'] },
    ]);
    expect(await extractPdfText(pdfjs, 'mixed.pdf', pdf)).toEqual({
      ok: true,
      pages: ['Cover letter.', '', 'Annex.'],
      pagesWithoutText: [2],
    });
  });

  it('asks for the password of a protected PDF, says when one is wrong, and reads it with the right one', async () => {
    const needs = failure(
      await extractPdfText(pdfjs, 'payslip.pdf', encryptedPdf('s3cret', ['Net pay: 1234'])),
    );
    expect(needs.code).toBe('pdf-password');
    expect(needs.message).toContain('"payslip.pdf" is protected by a password');
    const wrong = failure(
      await extractPdfText(pdfjs, 'payslip.pdf', encryptedPdf('s3cret'), { password: 'guess' }),
    );
    expect(wrong.code).toBe('pdf-wrong-password');
    const read = await extractPdfText(pdfjs, 'payslip.pdf', encryptedPdf('s3cret', ['Net pay: 1234']), {
      password: 's3cret',
    });
    expect(read).toEqual({ ok: true, pages: ['Net pay: 1234'], pagesWithoutText: [] });
  });

  it('says a file that is not a readable PDF may be damaged', async () => {
    const error = failure(
      await extractPdfText(pdfjs, 'broken.pdf', new TextEncoder().encode('%PDF-1.4\nthis is not a PDF')),
    );
    expect(error.code).toBe('pdf-unreadable');
    expect(error.message).toBe(
      '"broken.pdf" could not be read as a PDF (Invalid PDF structure): it may be damaged or cut short.',
    );
  });

  it('stops when cancelled, between pages', async () => {
    const controller = new AbortController();
    const error = failure(
      await extractPdfText(pdfjs, 'long.pdf', manyPagesPdf(20), {
        signal: controller.signal,
        onProgress: ({ page }) => {
          if (page === 3) controller.abort();
        },
      }),
    );
    expect(error.code).toBe('cancelled');
  });

  it('stops when cancelled from outside the read (a timer, as a message to its thread), not at its end', async () => {
    // pdf.js in-process answers through promises alone: the read has to let the timer run.
    const controller = new AbortController();
    const progress: number[] = [];
    setTimeout(() => controller.abort(), 200);
    const error = failure(
      await extractPdfText(pdfjs, 'long.pdf', emptyPagesPdf(2_000), {
        signal: controller.signal,
        onProgress: ({ page }) => progress.push(page),
      }),
    );
    expect(error.code).toBe('cancelled');
    expect(progress.length).toBeLessThan(2_000);
  }, 60_000);
});

describe('extractPdfText within limits', () => {
  const roomy = { pages: 1_000, textBytes: 10_000_000 };

  it('refuses a PDF of more pages than the limit before reading any page, naming the count and the limit', async () => {
    const progress: PdfPageRead[] = [];
    const error = failure(
      await extractPdfText(pdfjs, 'blank.pdf', emptyPagesPdf(2_500), {
        limits: { ...roomy, pages: 2_000 },
        onProgress: (p) => progress.push(p),
      }),
    );
    expect(error).toEqual({
      code: 'pdf-too-many-pages',
      message:
        '"blank.pdf" has 2,500 pages: Baton reads at most 2,000 pages of a PDF. Attach only the pages you ' +
        'need (print a range of pages to PDF).',
    });
    expect(progress).toEqual([]);
  });

  it('limits the text a PDF expands to, not its bytes: a page drawing its text 3,000 times is stopped', async () => {
    const pdf = expandingPdf(100, 30); // 30,000 lines of ~50 bytes, from a file of a few kilobytes
    expect(pdf.length).toBeLessThan(8_000);
    const progress: PdfPageRead[] = [];
    const error = failure(
      await extractPdfText(pdfjs, 'bomb.pdf', pdf, {
        limits: { ...roomy, textBytes: 100_000 },
        onProgress: (p) => progress.push(p),
      }),
    );
    expect(error.code).toBe('pdf-text-too-large');
    expect(error.message).toContain('"bomb.pdf" expands to more than 98 KB of text (by page 1 of 1)');
    expect(error.message).toContain('about 25,000 tokens, whatever the worker costs');
    expect(progress).toEqual([]);
    // Within the limit the same PDF reads whole: the limit is what refused it.
    const read = await extractPdfText(pdfjs, 'bomb.pdf', expandingPdf(10, 2), { limits: roomy });
    expect(read.ok && read.pages[0]).toContain('Line 10: this text is drawn again and again.');
  }, 60_000);

  it('counts the text of all pages together against the limit, and names the page it was passed on', async () => {
    // Pages of about 1,700 bytes: 5,053 after page 3, 6,747 after page 4.
    const error = failure(
      await extractPdfText(pdfjs, 'five.pdf', manyPagesPdf(5), { limits: { ...roomy, textBytes: 6_000 } }),
    );
    expect(error.code).toBe('pdf-text-too-large');
    expect(error.message).toContain('(by page 4 of 5)');
  });

  it('says a PDF nested too deeply to read is that, not "Maximum call stack size exceeded"', async () => {
    const error = failure(await extractPdfText(pdfjs, 'deep.pdf', deeplyNestedPdf(100_000)));
    expect(error.code).toBe('pdf-too-deep');
    expect(error.message).toBe(
      '"deep.pdf" could not be read: its structure is nested too deeply to read (a damaged or hostile ' +
        'file). Save a copy through another program (print it to PDF) and attach that.',
    );
  });
});

describe('pageText', () => {
  it('joins items, breaks lines where pdf.js marks them, and drops marked-content boundaries', () => {
    const item = (str: string, hasEOL = false) => ({
      str,
      hasEOL,
      dir: 'ltr',
      transform: [],
      width: 0,
      height: 0,
      fontName: 'F1',
    });
    expect(
      pageText([
        item('Total:'),
        item(' 42', true),
        { type: 'beginMarkedContent', id: 'm1' },
        item('Next line   ', true),
      ]),
    ).toBe('Total: 42\nNext line');
  });
});
