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
import type { PDFPageProxy, TextContent } from 'pdfjs-dist/types/src/display/api';
import { quotedName } from './file-names.ts';
import { formatBytes } from './format-bytes.ts';

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
  | 'pdf-too-deep'
  | 'pdf-no-text'
  | 'pdf-too-many-pages'
  | 'pdf-text-too-large'
  | 'cancelled';

/**
 * What one PDF may be read into. A PDF's bytes say little about its text: a page can draw the same text
 * thousands of times (a 15 KB file became 21 MB of text), so the text is limited as it is read, and a
 * read stops as soon as it is over.
 */
export interface PdfLimits {
  /** Pages: a longer PDF is refused before any page is read. */
  pages: number;
  /** Bytes of text (UTF-8), all pages together. */
  textBytes: number;
}

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
  /** Unlimited when absent. */
  limits?: PdfLimits;
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
    options: Pick<PdfReadOptions, 'password' | 'limits'>,
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

/**
 * pdf.js parses nested arrays and dictionaries by recursion, so a PDF nested deeply enough (a 100,000-deep
 * array) overflows the stack: V8 says "Maximum call stack size exceeded", Firefox "too much recursion".
 */
const TOO_DEEP = /maximum call stack|too much recursion/i;

/** pdf.js's failure to open or read a document, said for people. */
function failureOf(name: string, error: unknown, password: string | undefined): Failure {
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  if (e?.name === 'PasswordException') {
    return e.code === INCORRECT_PASSWORD && password !== undefined
      ? fail('pdf-wrong-password', `The password for ${quotedName(name)} is not right.`)
      : fail(
          'pdf-password',
          `${quotedName(name)} is protected by a password: Baton cannot read it without one. Enter its ` +
            'password, or save a copy without one (print it to PDF) and attach that.',
        );
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (e instanceof RangeError || TOO_DEEP.test(message)) {
    return fail(
      'pdf-too-deep',
      `${quotedName(name)} could not be read: its structure is nested too deeply to read (a damaged or ` +
        'hostile file). Save a copy through another program (print it to PDF) and attach that.',
    );
  }
  const detail = message.replace(/\s+/g, ' ').replace(/\.$/, '').slice(0, 120);
  return fail(
    'pdf-unreadable',
    e?.name === 'InvalidPDFException'
      ? `${quotedName(name)} could not be read as a PDF (${detail}): it may be damaged or cut short.`
      : `${quotedName(name)} could not be read: ${detail}.`,
  );
}

const utf8 = new TextEncoder();

const tooManyPages = (name: string, count: number, limit: number) =>
  fail(
    'pdf-too-many-pages',
    `${quotedName(name)} has ${count.toLocaleString('en')} pages: Baton reads at most ` +
      `${limit.toLocaleString('en')} pages of a PDF. Attach only the pages you need (print a range of ` +
      'pages to PDF).',
  );

/** `n` to two significant figures: a token count by characters / 4 is no more precise than that. */
function roughly(n: number): string {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return (Math.round(n / unit) * unit).toLocaleString('en');
}

const textTooLarge = (name: string, page: number, count: number, limit: number) =>
  fail(
    'pdf-text-too-large',
    `${quotedName(name)} expands to more than ${formatBytes(limit)} of text (by page ` +
      `${page.toLocaleString('en')} of ${count.toLocaleString('en')}): a PDF's text may be at most ` +
      `${formatBytes(limit)}, as a text file may (about ${roughly(limit / 4)} tokens, ` +
      'whatever the worker costs). Attach only the pages you need (print a range of pages to PDF).',
  );

/**
 * Lets the thread's other events run: pdf.js talks to its in-thread worker through promises alone, so a
 * read never otherwise returns to the event loop, and a cancel (a message to the thread, or a timer)
 * would wait for the whole PDF. A MessageChannel round trip, not `setTimeout(0)`, which nested timers
 * clamp to 4 ms each.
 */
function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** Yields once `YIELD_MS` of reading have passed since the last yield: soon enough for a cancel to feel immediate. */
const YIELD_MS = 50;

function yielder(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < YIELD_MS) return;
    await yieldToEvents();
    last = performance.now();
  };
}

/** Why a page's text stopped being read before its end. */
type PageStop = 'limit' | 'cancelled';

/**
 * A page's text, read as pdf.js streams it, so that a page that draws megabytes of text is stopped as
 * soon as `budget` bytes of it are read, and a cancel stops it mid-page too.
 */
async function readPage(
  page: PDFPageProxy,
  budget: number,
  signal: AbortSignal | undefined,
  pause: () => Promise<void>,
): Promise<string | PageStop> {
  const reader = (page.streamTextContent() as ReadableStream<TextContent>).getReader();
  const items: TextContent['items'] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return pageText(items);
    for (const item of value.items) {
      items.push(item);
      if ('str' in item) bytes += utf8.encode(item.str).length;
    }
    await pause();
    // The stream is left as it is, not cancelled: pdf.js's worker waits for it to be read (its
    // highWaterMark), and the document is destroyed next. (Cancelling it races pdf.js's own close of it,
    // which then throws where nothing can catch it.)
    if (signal?.aborted) return 'cancelled';
    if (bytes > budget) return 'limit';
  }
}

/**
 * The text of every page of a PDF, with progress after each page; or why not: a password it needs
 * (`pdf-password`) or a wrong one, a file pdf.js cannot read or one nested too deeply to (`pdf-too-deep`),
 * more pages or text than `limits`, no text on any page (`pdf-no-text`: a scan, whose pages are pictures
 * of text), a cancel. pdf.js takes `data` over.
 *
 * Pages are read in order, each once. pdf.js finds page n by walking its page tree from the top, and a
 * flat tree (every page a kid of the root, as the 50,000-page PDF had) makes each lookup cost as much as
 * the whole tree: reading all pages takes time quadratic in their number, inside pdf.js
 * (`Catalog.getPageDict`; mozilla/pdf.js#20359 proposed a shortcut and was closed). `limits.pages` bounds
 * that cost, and the count is known before any page is read.
 */
export async function extractPdfText(
  pdfjs: PdfJs,
  name: string,
  data: Uint8Array,
  options: PdfReadOptions = {},
): Promise<PdfTextResult> {
  const { signal, password, onProgress, limits } = options;
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
    const maxPages = limits?.pages ?? Number.POSITIVE_INFINITY;
    const maxText = limits?.textBytes ?? Number.POSITIVE_INFINITY;
    if (count > maxPages) return tooManyPages(name, count, maxPages);
    let textBytes = 0;
    const pause = yielder();
    for (let number = 1; number <= count; number++) {
      await pause();
      if (signal?.aborted) return cancelled(name);
      const page = await document.getPage(number);
      const text = await readPage(page, maxText - textBytes, signal, pause);
      page.cleanup();
      if (text === 'cancelled') return cancelled(name);
      if (text === 'limit') return textTooLarge(name, number, count, maxText);
      // Counted as sent (after pageText): a page's trailing blanks cost nothing.
      textBytes += utf8.encode(text).length;
      if (textBytes > maxText) return textTooLarge(name, number, count, maxText);
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
