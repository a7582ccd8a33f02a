/**
 * A PDF's text, page by page, through pdf.js. Pure over the pdf.js module it is given: the PDF reader's
 * thread (workers/pdf-text.worker.ts) runs it with pdf.js and pdf.js's worker code both in that thread,
 * and node's tests run it with pdf.js's legacy build. Expected failures (a password, a damaged file, a
 * scan with no text layer, a cancel) are a typed result, not a throw, so they cross the thread intact.
 *
 * API: https://mozilla.github.io/pdf.js/api/draft/module-pdfjsLib.html (`getDocument`, `getPage`,
 * `getTextContent`; `PasswordException` with `PasswordResponses` 1 NEED_PASSWORD / 2 INCORRECT_PASSWORD,
 * `InvalidPDFException`), read from pdfjs-dist 5.6's types and source.
 */
import type { getDocument } from 'pdfjs-dist';
import type { TextContent } from 'pdfjs-dist/types/src/display/api';
import { quotedName } from './file-names.ts';

/** What is used of pdf.js: its `getDocument`. */
export interface PdfJs {
  getDocument: typeof getDocument;
}

/** Page `page` of `pages` has been read. */
export interface PdfProgress {
  page: number;
  pages: number;
}

/** A page as it is read: where it is, and its text. */
export interface PdfPageRead extends PdfProgress {
  text: string;
}

export type PdfFailureCode =
  | 'pdf-password'
  | 'pdf-wrong-password'
  | 'pdf-unreadable'
  | 'pdf-no-text'
  | 'cancelled';

export type PdfTextResult =
  | {
      ok: true;
      /** Each page's text, in order ('' for a page with no text layer). */
      pages: string[];
      /** Pages (1-based) with no text layer. */
      pagesWithoutText: number[];
    }
  /** Why it was not read, for people, naming the file. */
  | { ok: false; code: PdfFailureCode; message: string };

export interface PdfReadOptions {
  /** For a password-protected PDF. */
  password?: string;
  signal?: AbortSignal;
  /** After each page, with its text. */
  onProgress?: (page: PdfPageRead) => void;
}

/**
 * The PDF reader's thread, as the page calls it (comlink): `read` takes the bytes over (transferred) and
 * sends each page's text as it is read, so the page takes in one page at a time, never the whole text in
 * one message; its result holds no pages. `cancel(id)` stops the read of that id (an AbortSignal cannot
 * cross a thread).
 */
export interface PdfTextThreadApi {
  read(
    id: string,
    name: string,
    data: Uint8Array,
    password: string | undefined,
    onPage: (page: PdfPageRead) => void,
  ): Promise<PdfTextResult>;
  cancel(id: string): void;
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

type Failure = Extract<PdfTextResult, { ok: false }>;

const fail = (code: PdfFailureCode, message: string): Failure => ({ ok: false, code, message });

const cancelled = (name: string) => fail('cancelled', `Reading ${quotedName(name)} was cancelled.`);

/** pdf.js's failure to open or read a document, said for people. */
function failureOf(name: string, error: unknown, password: string | undefined): Failure {
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  if (e?.name === 'PasswordException') {
    return e.code === INCORRECT_PASSWORD && password !== undefined
      ? fail('pdf-wrong-password', `The password for ${quotedName(name)} is not right.`)
      : fail(
          'pdf-password',
          `${quotedName(name)} is protected by a password: Baton cannot read it without one. Give the ` +
            'password, or save a copy without one (print it to PDF) and attach that.',
        );
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const detail = message.replace(/\s+/g, ' ').replace(/\.$/, '').slice(0, 120);
  return fail(
    'pdf-unreadable',
    e?.name === 'InvalidPDFException'
      ? `${quotedName(name)} could not be read as a PDF (${detail}): it may be damaged or cut short.`
      : `${quotedName(name)} could not be read: ${detail}.`,
  );
}

/**
 * The text of every page of a PDF, with progress after each page; or why not: a password it needs
 * (`pdf-password`) or a wrong one, a file pdf.js cannot read, no text on any page (`pdf-no-text`: a scan,
 * whose pages are pictures of text), a cancel. pdf.js takes `data` over.
 */
export async function extractPdfText(
  pdfjs: PdfJs,
  name: string,
  data: Uint8Array,
  options: PdfReadOptions = {},
): Promise<PdfTextResult> {
  const { signal, password, onProgress } = options;
  if (signal?.aborted) return cancelled(name);
  const task = pdfjs.getDocument({
    data,
    ...(password !== undefined ? { password } : {}),
    // Nothing is drawn: no fonts are loaded, and nothing is compiled from a PDF's functions (the CSP
    // forbids `new Function` anyway).
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // Errors only: a damaged font is reported by what it costs (text missing), not on the console.
    verbosity: 0,
  });
  const stop = () => void task.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const document = await task.promise;
    const pages: string[] = [];
    const pagesWithoutText: number[] = [];
    const count = document.numPages;
    for (let number = 1; number <= count; number++) {
      if (signal?.aborted) return cancelled(name);
      const page = await document.getPage(number);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      pages.push(text);
      if (!text) pagesWithoutText.push(number);
      onProgress?.({ page: number, pages: count, text });
    }
    if (pagesWithoutText.length === count) {
      return fail(
        'pdf-no-text',
        `${quotedName(name)} has no text layer: its ${count === 1 ? 'page is a picture' : `${count} pages are pictures`} ` +
          '(a scan?), so there is no text to send. Attach the pages as images, or run text recognition (OCR) on it first.',
      );
    }
    return { ok: true, pages, pagesWithoutText };
  } catch (error) {
    return signal?.aborted ? cancelled(name) : failureOf(name, error, password);
  } finally {
    signal?.removeEventListener('abort', stop);
    await task.destroy().catch(() => {});
  }
}
