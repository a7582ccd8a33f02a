import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { createBenchDocument } from '../../../../src/app/bench/bench-document.ts';
import { pdfReaderOver } from '../../../../src/attachments/pdf-reader.ts';
import { extractPdfText } from '../../../../src/shared/pdf-text.ts';
import { scannedPdf, textPdf } from '../../../fixtures/pdf-writer.ts';

// pdf.js in this process, as the page's reader thread runs it.
const pdfFile = (name: string, bytes: Uint8Array) =>
  new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/pdf' });
const realPdf = () => pdfReaderOver((name, data, options) => extractPdfText(pdfjs, name, data, options));

describe("the bench's document", () => {
  it('reads a PDF with text, and refuses a scanned one saying why, keeping the one chosen before', async () => {
    const picker = createBenchDocument(realPdf);
    await picker.attach(pdfFile('terms.pdf', textPdf([['Clause 7. Notice is ninety days.']])));
    expect(picker.document.value).toMatchObject({ name: 'terms.pdf', kind: 'pdf' });
    expect(picker.problem.value).toBeUndefined();

    await picker.attach(pdfFile('scan.pdf', scannedPdf()));
    expect(picker.problem.value).toContain('"scan.pdf" has no text layer');
    expect(picker.document.value?.name).toBe('terms.pdf');
    expect(picker.reading.value).toBe(false);

    picker.clear();
    expect(picker.document.value).toBeUndefined();
    picker.dispose();
  });

  it('reads a Markdown file as text', async () => {
    const picker = createBenchDocument(() => {
      throw new Error('no PDF expected');
    });
    await picker.attach(new File(['# Terms\n\nNotice is ninety days.\n'], 'terms.md'));
    expect(picker.document.value).toMatchObject({ kind: 'markdown', name: 'terms.md' });
  });
});
