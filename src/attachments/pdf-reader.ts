/**
 * The page's PDF reader: pdf.js, loaded on the first PDF (so it is not in the page's first load), with
 * its own Web Worker (pdf.js's worker script, bundled by Vite's `?worker`, handed to pdf.js as its worker
 * port). pdf.js parses the file and extracts each page's text in that worker: the page's main thread only
 * hands the bytes over and joins each page's strings, so a long PDF never blocks it.
 * The CSP's `worker-src 'self' blob:` covers the worker (same origin); `isEvalSupported: false`
 * (pdf-text.ts) keeps pdf.js from trying `new Function`, which the CSP forbids.
 */
import type { PDFWorker } from 'pdfjs-dist';
import { AttachmentError, quoted } from './limits.ts';
import { extractPdfText, type PdfJs, type PdfReadOptions, type PdfText } from './pdf-text.ts';

export interface PdfReader {
  /** The text of every page (see `extractPdfText`); `data` is taken over (transferred to the worker). */
  read(name: string, data: Uint8Array, options?: Omit<PdfReadOptions, 'worker'>): Promise<PdfText>;
  /** Stops the worker; the next `read` starts another. */
  dispose(): void;
}

interface Loaded {
  pdfjs: PdfJs;
  worker: PDFWorker;
  thread: Worker;
}

async function load(): Promise<Loaded> {
  const [pdfjs, { default: PdfJsThread }] = await Promise.all([
    import('pdfjs-dist'),
    import('pdfjs-dist/build/pdf.worker.mjs?worker'),
  ]);
  const thread = new PdfJsThread({ name: 'pdf.js' });
  return { pdfjs, worker: pdfjs.PDFWorker.create({ port: thread, verbosity: 0 }), thread };
}

/** A reader that starts pdf.js and its worker on its first PDF and keeps them for the next ones. */
export function createPdfReader(): PdfReader {
  let loading: Promise<Loaded> | undefined;
  return {
    async read(name, data, options = {}) {
      loading ??= load();
      let loaded: Loaded;
      try {
        loaded = await loading;
      } catch (error) {
        loading = undefined;
        const detail = error instanceof Error ? error.message : String(error);
        throw new AttachmentError(
          'pdf-reader-unavailable',
          name,
          `${quoted(name)} was not read: the PDF reader could not be loaded (${detail.slice(0, 120)}). ` +
            'It is fetched the first time a PDF is attached, so this needs the network once.',
        );
      }
      return extractPdfText(loaded.pdfjs, name, data, { ...options, worker: loaded.worker });
    },
    dispose() {
      const current = loading;
      loading = undefined;
      current?.then(
        ({ worker, thread }) => {
          worker.destroy();
          thread.terminate();
        },
        () => {},
      );
    },
  };
}
