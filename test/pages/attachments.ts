/**
 * Harness for test/browser/attachments-*.spec.ts and the PDF bench: the real attachment reader (pdf.js in
 * its own Web Worker, images through createImageBitmap and OffscreenCanvas) over the files of a real
 * `<input type="file">`, and a watch on the page's main thread while it reads.
 */
import type { AttachmentError } from '../../src/attachments/limits.ts';
import { createPdfReader } from '../../src/attachments/pdf-reader.ts';
import { type ReadProgress, readAttachments } from '../../src/attachments/read.ts';
import type { Attachment, EncodedImage } from '../../src/attachments/types.ts';

/** What a test reads of an attachment: everything but the bytes, which it gets as a size and a hash. */
export type AttachmentSummary = (Attachment extends infer A
  ? A extends Attachment
    ? Omit<A, 'blob' | 'image' | 'downscaled' | 'thumbnail'>
    : never
  : never) & {
  image?: ImageSummary;
  downscaled?: ImageSummary;
  thumbnail?: { type: string; width: number; height: number };
};

interface ImageSummary {
  mime: string;
  width: number;
  height: number;
  bytes: number;
  /** The first 16 hex digits of the bytes' SHA-256. */
  sha256: string;
}

export interface ReadSummary {
  attachments: AttachmentSummary[];
  errors: { code: string; fileName: string; message: string }[];
  /** PDFs that need a password (the page asks for it), with why. */
  locked: { code: string; fileName: string; message: string }[];
  duplicates: string[];
  progress: ReadProgress[];
  /** From the call to the result, on the page's clock. */
  ms: number;
}

export interface MainThreadReport {
  /** Durations of the Long Tasks (over 50 ms) the page's main thread ran while watched. */
  longTasks: number[];
}

const hex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, 16);

async function imageSummary(image: EncodedImage): Promise<ImageSummary> {
  const { mime, width, height, bytes } = image;
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return { mime, width, height, bytes: bytes.byteLength, sha256: hex(digest) };
}

async function summary(attachment: Attachment): Promise<AttachmentSummary> {
  if (attachment.kind !== 'image') {
    const { blob: _blob, ...rest } = attachment;
    return rest;
  }
  const { blob: _blob, image, downscaled, thumbnail, ...rest } = attachment;
  const bitmap = await createImageBitmap(thumbnail);
  const out: AttachmentSummary = {
    ...rest,
    image: await imageSummary(image),
    thumbnail: { type: thumbnail.type, width: bitmap.width, height: bitmap.height },
  };
  bitmap.close();
  if (downscaled) out.downscaled = await imageSummary(downscaled);
  return out;
}

const pdf = createPdfReader();
const input = document.querySelector<HTMLInputElement>('input[type=file]');
const cspViolations: string[] = [];
document.addEventListener('securitypolicyviolation', (event) => {
  cspViolations.push(`${event.violatedDirective}: ${event.blockedURI}`);
});

let watch: { longTasks: number[]; observer: PerformanceObserver } | undefined;

const harness = {
  /** Reads the input's files as the page would (the turn holding nothing yet). */
  async readInput(options: { password?: string } = {}): Promise<ReadSummary> {
    const files = [...(input?.files ?? [])];
    const progress: ReadProgress[] = [];
    const start = performance.now();
    const result = await readAttachments(files, [], {
      pdf,
      onProgress: (p) => progress.push(p),
      ...(options.password !== undefined ? { password: options.password } : {}),
    });
    const ms = performance.now() - start;
    const said = (e: AttachmentError) => ({ code: e.code, fileName: e.fileName, message: e.message });
    return {
      attachments: await Promise.all(result.attachments.map(summary)),
      errors: result.errors.map(said),
      locked: result.locked.map(({ error }) => said(error)),
      duplicates: result.duplicates,
      progress,
      ms,
    };
  },
  /** Starts collecting the main thread's Long Tasks (the Long Tasks API: tasks over 50 ms). */
  watchMainThread(): void {
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask' });
    watch = { longTasks, observer };
  },
  stopWatching(): MainThreadReport {
    if (!watch) throw new Error('not watching');
    const { longTasks, observer } = watch;
    for (const entry of observer.takeRecords()) longTasks.push(entry.duration);
    observer.disconnect();
    watch = undefined;
    return { longTasks };
  },
  /**
   * Whether any of pdf.js ever ran on the page's main thread: its API module sets `pdfjsLib`, its worker
   * code `pdfjsWorker`, on the global object of the thread they run in.
   */
  pdfJsOnMainThread: () => 'pdfjsLib' in globalThis || 'pdfjsWorker' in globalThis,
  /** Scripts the page fetched for reading PDFs: the reader's thread must be among them. */
  pdfScripts: () =>
    performance
      .getEntriesByType('resource')
      .map((entry) => new URL(entry.name).pathname)
      .filter((path) => /pdf/i.test(path)),
  cspViolations: () => [...cspViolations],
};

export type AttachmentsHarness = typeof harness;
Object.assign(globalThis, { __attachments: harness });
document.body.dataset.ready = 'true';
