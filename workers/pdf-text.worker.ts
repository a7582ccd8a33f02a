/**
 * The PDF reader's thread: pdf.js reads a PDF's text here, off the page's main thread. pdf.js's worker
 * code is loaded into this same thread (it registers itself as `globalThis.pdfjsWorker`, which pdf.js
 * then uses in place of a worker of its own), so both halves of pdf.js, its API and its parser, run here
 * and the page loads none of pdf.js: it sends the bytes, and gets progress and each page's text back.
 * Started by src/attachments/pdf-reader.ts on the first PDF.
 */
import 'pdfjs-dist/build/pdf.worker.mjs';
import { expose } from 'comlink';
import * as pdfjs from 'pdfjs-dist';
import { extractPdfText, type PdfTextThreadApi } from '../src/shared/pdf-text.ts';

class PdfTextThread implements PdfTextThreadApi {
  private readonly reading = new Map<string, AbortController>();

  async read(...[id, name, data, { password, limits }, onPage]: Parameters<PdfTextThreadApi['read']>) {
    const controller = new AbortController();
    this.reading.set(id, controller);
    // Each page goes on the callback's own channel: the result, on this thread's, must not overtake them.
    const sent: unknown[] = [];
    try {
      const result = await extractPdfText(pdfjs, name, data, {
        signal: controller.signal,
        onProgress: (page) => sent.push(onPage(page)),
        ...(password !== undefined ? { password } : {}),
        ...(limits ? { limits } : {}),
      });
      await Promise.all(sent);
      // The pages went to the page one by one: the result need not carry them all again.
      return result.ok ? { ...result, pages: [] } : result;
    } finally {
      this.reading.delete(id);
    }
  }

  cancel(id: string): void {
    this.reading.get(id)?.abort();
  }
}

expose(new PdfTextThread());
