/**
 * A PDF's text, page by page, through pdf.js: the document is parsed in pdf.js's worker (the `worker`
 * given), and only each page's text comes back to the caller. Pure over the pdf.js module it is given, so
 * the same code runs on the page (pdf-reader.ts, with pdf.js's Web Worker) and in node's tests.
 *
 * API: https://mozilla.github.io/pdf.js/api/draft/module-pdfjsLib.html (`getDocument`, `getPage`,
 * `getTextContent`; `PasswordException` with `PasswordResponses` 1 NEED_PASSWORD / 2 INCORRECT_PASSWORD,
 * `InvalidPDFException`), read from pdfjs-dist 5.6's types and source.
 */
import type { getDocument, PDFWorker } from 'pdfjs-dist';
import type { TextContent } from 'pdfjs-dist/types/src/display/api';
import { AttachmentError, quoted } from './limits.ts';

/** What is used of pdf.js: its `getDocument`. */
export interface PdfJs {
  getDocument: typeof getDocument;
}

export interface PdfText {
  /** Each page's text, in order ('' for a page with no text layer). */
  pages: string[];
  /** Pages (1-based) with no text layer. */
  pagesWithoutText: number[];
}

/** Page `page` of `pages` has been read. */
export interface PdfProgress {
  page: number;
  pages: number;
}

export interface PdfReadOptions {
  /** For a password-protected PDF. */
  password?: string;
  signal?: AbortSignal;
  onProgress?: (progress: PdfProgress) => void;
  /** The pdf.js worker to parse in (pdf-reader.ts's); without it pdf.js makes its own. */
  worker?: PDFWorker;
}

/** pdf.js's `PasswordResponses.INCORRECT_PASSWORD`: a password was given and it is not this PDF's. */
const INCORRECT_PASSWORD = 2;

/** A page's text: each item's string, a line break where pdf.js marks the end of a line. */
export function pageText(items: TextContent['items']): string {
  let text = '';
  for (const item of items) {
    if (!('str' in item)) continue; // marked-content boundaries carry no text
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function cancelled(name: string): AttachmentError {
  return new AttachmentError('cancelled', name, `Reading ${quoted(name)} was cancelled.`);
}

/** pdf.js's failure to open a document, as an AttachmentError naming the file. */
function openError(name: string, error: unknown, password: string | undefined): AttachmentError {
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  if (e?.name === 'PasswordException') {
    return e.code === INCORRECT_PASSWORD && password !== undefined
      ? new AttachmentError('pdf-wrong-password', name, `The password for ${quoted(name)} is not right.`)
      : new AttachmentError(
          'pdf-password',
          name,
          `${quoted(name)} is protected by a password: Baton cannot read it without one. Give the password, or ` +
            'save a copy without one (print it to PDF) and attach that.',
        );
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const detail = message.replace(/\s+/g, ' ').replace(/\.$/, '').slice(0, 120);
  return new AttachmentError(
    'pdf-unreadable',
    name,
    e?.name === 'InvalidPDFException'
      ? `${quoted(name)} could not be read as a PDF (${detail}): it may be damaged or cut short.`
      : `${quoted(name)} could not be read: ${detail}.`,
  );
}

/**
 * The text of every page of a PDF, read in the pdf.js worker given. Progress after each page. Throws an
 * AttachmentError naming the file: a password it needs (`pdf-password`) or a wrong one, a file pdf.js
 * cannot read, a PDF with no text on any page (`pdf-no-text`: a scan, whose pages are pictures of text),
 * or a cancel.
 */
export async function extractPdfText(
  pdfjs: PdfJs,
  name: string,
  data: Uint8Array,
  options: PdfReadOptions = {},
): Promise<PdfText> {
  const { signal, password, onProgress, worker } = options;
  if (signal?.aborted) throw cancelled(name);
  const task = pdfjs.getDocument({
    // pdf.js takes the bytes over (transferred to its worker): the caller keeps the file's Blob instead.
    data,
    ...(password !== undefined ? { password } : {}),
    ...(worker ? { worker } : {}),
    // Nothing is drawn: no fonts are loaded into the page, and nothing is compiled from a PDF's functions.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // Errors only: a damaged font in a PDF is reported by what it costs (text missing), not on the console.
    verbosity: 0,
  });
  const stop = () => void task.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    let document: Awaited<typeof task.promise>;
    try {
      document = await task.promise;
    } catch (error) {
      if (signal?.aborted) throw cancelled(name);
      throw openError(name, error, password);
    }
    const pages: string[] = [];
    const pagesWithoutText: number[] = [];
    const count = document.numPages;
    for (let number = 1; number <= count; number++) {
      if (signal?.aborted) throw cancelled(name);
      const page = await document.getPage(number);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      pages.push(text);
      if (!text) pagesWithoutText.push(number);
      onProgress?.({ page: number, pages: count });
    }
    if (pagesWithoutText.length === count) {
      throw new AttachmentError(
        'pdf-no-text',
        name,
        `${quoted(name)} has no text layer: its ${count === 1 ? 'page is a picture' : `${count} pages are pictures`} ` +
          '(a scan?), so there is no text to send. Attach the pages as images, or run text recognition (OCR) on it first.',
      );
    }
    return { pages, pagesWithoutText };
  } catch (error) {
    if (error instanceof AttachmentError) throw error;
    if (signal?.aborted) throw cancelled(name);
    throw openError(name, error, password);
  } finally {
    signal?.removeEventListener('abort', stop);
    await task.destroy().catch(() => {});
  }
}
