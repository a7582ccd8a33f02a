/**
 * The page's PDF reader. pdf.js runs whole in a Web Worker of its own (workers/pdf-text.worker.ts, started
 * on the first PDF), so the page loads none of pdf.js and never parses a PDF: it transfers the bytes,
 * and gets each page's progress and text back. A long PDF never blocks the page. The CSP's
 * `worker-src 'self' blob:` covers the worker (a same-origin script).
 */
import { proxy, type Remote, releaseProxy, transfer, wrap } from 'comlink';
import { quotedName } from '../shared/file-names.ts';
import type { PdfPageRead, PdfReadOptions, PdfTextResult, PdfTextThreadApi } from '../shared/pdf-text.ts';
import { AttachmentError } from './limits.ts';

export interface PdfText {
  pages: string[];
  pagesWithoutText: number[];
}

export interface PdfReader {
  /**
   * The text of every page, or an AttachmentError naming the file (a password, a damaged file, no text
   * layer, a cancel, the reader not loading). `data` is taken over (transferred to the reader's thread).
   */
  read(name: string, data: Uint8Array, options?: PdfReadOptions): Promise<PdfText>;
  /** Stops the reader's thread; the next `read` starts another. */
  dispose(): void;
}

/** A reader over any way of reading a PDF's text (the thread here; pdf.js in-process in node's tests). */
export function pdfReaderOver(
  extract: (name: string, data: Uint8Array, options: PdfReadOptions) => Promise<PdfTextResult>,
  dispose: () => void = () => {},
): PdfReader {
  return {
    async read(name, data, options = {}) {
      const result = await extract(name, data, options);
      if (!result.ok) throw new AttachmentError(result.code, name, result.message);
      return { pages: result.pages, pagesWithoutText: result.pagesWithoutText };
    },
    dispose,
  };
}

interface ReaderThread {
  worker: Worker;
  api: Remote<PdfTextThreadApi>;
  /** Rejects when the thread fails to start or dies (its script did not load, say, offline). */
  died: Promise<never>;
}

function startReaderThread(): ReaderThread {
  const worker = new Worker(new URL('../../workers/pdf-text.worker.ts', import.meta.url), {
    type: 'module',
    name: 'pdf-text',
  });
  const died = new Promise<never>((_, reject) => {
    worker.addEventListener('error', (event) => reject(new Error(event.message || 'the reader stopped')), {
      once: true,
    });
  });
  died.catch(() => {});
  return { worker, api: wrap<PdfTextThreadApi>(worker), died };
}

/** The page's reader: its thread started on the first PDF and kept for the next ones. */
export function createPdfReader(): PdfReader {
  let readerThread: ReaderThread | undefined;
  let reads = 0;
  const stop = () => {
    readerThread?.api[releaseProxy]();
    readerThread?.worker.terminate();
    readerThread = undefined;
  };
  async function extract(name: string, data: Uint8Array, options: PdfReadOptions): Promise<PdfTextResult> {
    readerThread ??= startReaderThread();
    const { api, died } = readerThread;
    const id = `pdf-${++reads}`;
    const cancel = () => void api.cancel(id);
    options.signal?.addEventListener('abort', cancel, { once: true });
    const pages: string[] = [];
    const onPage = proxy((page: PdfPageRead) => {
      pages[page.page - 1] = page.text;
      options.onProgress?.(page);
    });
    try {
      const result = await Promise.race([
        api.read(
          id,
          name,
          transfer(data, [data.buffer]),
          {
            ...(options.password !== undefined ? { password: options.password } : {}),
            ...(options.limits ? { limits: options.limits } : {}),
          },
          onPage,
        ),
        died,
      ]);
      return result.ok ? { ...result, pages } : result;
    } catch (error) {
      stop();
      const detail = error instanceof Error ? error.message : String(error);
      throw new AttachmentError(
        'pdf-reader-unavailable',
        name,
        `${quotedName(name)} was not read: the PDF reader stopped (${detail.slice(0, 120)}). It is fetched ` +
          'the first time a PDF is attached, so it needs the network once.',
      );
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }
  return pdfReaderOver(extract, stop);
}
