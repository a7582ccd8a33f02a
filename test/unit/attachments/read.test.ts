/**
 * Reading files as the page does, with real `File`s, Web Crypto and pdf.js (its legacy build, in-process
 * here; the page's own reader runs it in a Web Worker: test/browser/attachments-files.spec.ts). Images
 * need the browser's decoder, so they are read in that spec only.
 */
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../../src/attachments/hash.ts';
import { ATTACHMENT_LIMITS, AttachmentError } from '../../../src/attachments/limits.ts';
import { pdfReaderOver } from '../../../src/attachments/pdf-reader.ts';
import { type ReadProgress, readAttachment, readAttachments } from '../../../src/attachments/read.ts';
import { extractPdfText } from '../../../src/shared/pdf-text.ts';
import {
  DENSE_LINE,
  emptyPagesPdf,
  expandingPdf,
  manyPagesPdf,
  scannedPdf,
  textPdf,
} from '../../fixtures/pdf-writer.ts';

/** The page's reader over pdf.js in-process (the page's runs pdf.js in its own thread). */
const pdf = pdfReaderOver((name, data, options) => extractPdfText(pdfjs, name, data, options));

const file = (name: string, content: string | Uint8Array, type = '') =>
  new File(
    [(typeof content === 'string' ? new TextEncoder().encode(content) : content) as Uint8Array<ArrayBuffer>],
    name,
    { type },
  );

async function refusal(promise: Promise<unknown>): Promise<AttachmentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AttachmentError) return error;
    throw error;
  }
  throw new Error('the file was read');
}

describe('readAttachment', () => {
  it('reads a CSV: kind, type, size, its text, and its content hash as id', async () => {
    const csv = 'region,units\nnorth,120\nsouth,95\n';
    const source = file('sales.csv', csv, 'text/csv');
    const attachment = await readAttachment(source, { pdf });
    expect(attachment).toMatchObject({
      id: await contentHash(new TextEncoder().encode(csv)),
      name: 'sales.csv',
      kind: 'csv',
      mime: 'text/csv',
      size: csv.length,
      text: csv,
      encoding: 'utf-8',
    });
    expect(attachment.blob).toBe(source);
    expect(attachment).not.toHaveProperty('note');
  });

  it('says when a text file was not UTF-8', async () => {
    const attachment = await readAttachment(file('legacy.csv', Uint8Array.from([0x63, 0x61, 0x66, 0xe9])), {
      pdf,
    });
    expect(attachment).toMatchObject({
      kind: 'csv',
      encoding: 'windows-1252',
      note: 'not UTF-8: read as windows-1252',
    });
  });

  it("reads a PDF's pages through the PDF reader, reporting page n of N", async () => {
    const progress: ReadProgress[] = [];
    const attachment = await readAttachment(file('report.pdf', manyPagesPdf(5), 'application/pdf'), {
      pdf,
      onProgress: (p) => progress.push(p),
    });
    expect(attachment.kind).toBe('pdf');
    if (attachment.kind !== 'pdf') return;
    expect(attachment.pages).toHaveLength(5);
    expect(attachment.pages[4]).toContain('Page 5 of 5');
    expect(progress[0]).toEqual({ file: 'report.pdf', stage: 'reading' });
    expect(progress.slice(1)).toEqual(
      Array.from({ length: 5 }, (_, i) => ({ file: 'report.pdf', stage: 'pdf', page: i + 1, pages: 5 })),
    );
  });

  it('refuses, naming the file: an SVG, a file over its limit, a scanned PDF, a binary file', async () => {
    expect((await refusal(readAttachment(file('logo.svg', '<svg/>'), { pdf }))).code).toBe(
      'unsupported-image',
    );
    const big = await refusal(
      readAttachment(file('huge.log', 'x'.repeat(ATTACHMENT_LIMITS.textFileBytes + 1)), { pdf }),
    );
    expect(big.code).toBe('file-too-large');
    expect(big.message).toContain('"huge.log" is 2.0 MB');
    const scan = await refusal(readAttachment(file('scan.pdf', scannedPdf()), { pdf }));
    expect(scan.message).toContain('"scan.pdf" has no text layer');
    expect(
      (await refusal(readAttachment(file('app.exe', Uint8Array.of(0x4d, 0x5a, 0, 0)), { pdf }))).code,
    ).toBe('unsupported-type');
  });

  it("limits what a PDF expands to, as a text file's bytes are: its text to 2 MB, its pages to 2,000", async () => {
    // A few kilobytes that draw 4,000 lines of 660 bytes: 2.6 MB of text, in few glyphs (pdf.js's time
    // goes by the glyph: ASCII lines took five times as long, past a minute on a loaded machine).
    const bomb = expandingPdf(20, 20, DENSE_LINE);
    expect(bomb.length).toBeLessThan(ATTACHMENT_LIMITS.pdfFileBytes / 1000);
    const large = await refusal(readAttachment(file('bomb.pdf', bomb), { pdf }));
    expect(large.code).toBe('pdf-text-too-large');
    expect(large.fileName).toBe('bomb.pdf');
    expect(large.message).toContain('"bomb.pdf" expands to more than 2.0 MB of text');
    expect(large.message).toContain('about 520,000 tokens');
    const long = await refusal(
      readAttachment(file('blank.pdf', emptyPagesPdf(ATTACHMENT_LIMITS.pdfPages + 1)), { pdf }),
    );
    expect(long.code).toBe('pdf-too-many-pages');
    expect(long.message).toContain('"blank.pdf" has 2,001 pages: Baton reads at most 2,000 pages');
  }, 60_000);

  it('reads nothing once cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      (await refusal(readAttachment(file('a.txt', 'hi'), { pdf, signal: controller.signal }))).code,
    ).toBe('cancelled');
  });
});

describe('readAttachments', () => {
  it('reads every good file, and names each bad one without losing the others', async () => {
    const result = await readAttachments(
      [file('notes.md', '# Notes'), file('logo.svg', '<svg/>'), file('memo.pdf', textPdf([['Memo']]))],
      [],
      { pdf },
    );
    expect(result.attachments.map((a) => [a.name, a.kind])).toEqual([
      ['notes.md', 'markdown'],
      ['memo.pdf', 'pdf'],
    ]);
    expect(result.errors.map((e) => e.fileName)).toEqual(['logo.svg']);
  });

  it("checks the turn's limits first, counting what it already holds, and reads nothing when they are broken", async () => {
    const already = Array.from({ length: ATTACHMENT_LIMITS.filesPerTurn }, (_, i) => ({
      id: `h${i}`,
      name: `f${i}`,
      size: 1,
    }));
    const result = await readAttachments([file('one-more.txt', 'x')], already, { pdf });
    expect(result.attachments).toEqual([]);
    expect(result.errors.map((e) => e.code)).toEqual(['too-many-files']);
  });

  it('leaves out a file whose content is already attached, under another name or not', async () => {
    const first = await readAttachment(file('a.txt', 'same text'), { pdf });
    const result = await readAttachments([file('b.txt', 'same text'), file('c.txt', 'other')], [first], {
      pdf,
    });
    expect(result.duplicates).toEqual(['b.txt']);
    expect(result.attachments.map((a) => a.name)).toEqual(['c.txt']);
  });
});
