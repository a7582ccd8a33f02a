/**
 * The files attached to the question being written: read as they are added (by the button, a drop or a
 * paste), shown as chips, taken by the question when it is asked. A file that cannot be attached is an
 * error naming it and the limit; the others are kept. A PDF that needs a password waits for it, and the
 * file being read can be cancelled. The PDF reader's thread starts on the first PDF and is kept for the
 * page's life.
 */
import { computed, signal } from '@preact/signals';
import type { PassageLibrary } from '../attachments/passage-store.ts';
import { createPdfReader, type PdfReader } from '../attachments/pdf-reader.ts';
import { type ReadProgress, type ReadResult, readAttachments } from '../attachments/read.ts';
import type { Attachment } from '../attachments/types.ts';
import { quotedName } from '../shared/file-names.ts';

export interface AttachmentsServices {
  /** The PDF reader (default: the page's, in its own thread). */
  pdfReader?: () => PdfReader;
  /** Indexes each file's passages as it is read, so review and the first step find them ready. */
  passages?: PassageLibrary;
}

/** A PDF that needs its password before it can be attached: the page asks for it. */
export interface LockedPdf {
  /** Tells two locked files of the same name apart. */
  id: number;
  file: File;
  /** Why it is locked: it needs a password, or the one given is not right. */
  message: string;
}

export function createAttachments(services: AttachmentsServices = {}) {
  const files = signal<readonly Attachment[]>([]);
  const errors = signal<readonly string[]>([]);
  const locked = signal<readonly LockedPdf[]>([]);
  const progress = signal<ReadProgress | undefined>(undefined);
  const reading = signal(0);
  let reader: PdfReader | undefined;
  let queue: Promise<void> = Promise.resolve();
  /** The file being read, for its Cancel. */
  let current: AbortController | undefined;
  let lockIds = 0;

  /** Runs `job` after any files still being read, so the turn's limits count them all. */
  function enqueue(job: () => Promise<void>): Promise<void> {
    reading.value++;
    queue = queue.then(async () => {
      try {
        await job();
      } finally {
        progress.value = undefined;
        current = undefined;
        reading.value--;
      }
    });
    return queue;
  }

  function read(added: readonly File[], password?: string): Promise<ReadResult> {
    reader ??= services.pdfReader?.() ?? createPdfReader();
    return readAttachments(added, files.value, {
      pdf: reader,
      ...(password !== undefined ? { password } : {}),
      signalFor: () => {
        current = new AbortController();
        return current.signal;
      },
      onProgress: (p) => {
        progress.value = p;
      },
    });
  }

  /** Takes in what was read; the errors said are this read's. */
  function settle(result: ReadResult): void {
    files.value = [...files.value, ...result.attachments];
    // In the background, yielding to the page; a file without text (an image, a scan) has none to index.
    for (const file of result.attachments) void services.passages?.indexFor(file).catch(() => undefined);
    errors.value = [
      ...result.errors.map((error) => error.message),
      ...result.duplicates.map((name) => `${quotedName(name)} is already attached (the same content).`),
    ];
  }

  function add(added: readonly File[]): Promise<void> {
    if (added.length === 0) return queue;
    errors.value = [];
    return enqueue(async () => {
      const result = await read(added);
      settle(result);
      locked.value = [
        ...locked.value,
        ...result.locked.map(({ file, error }) => ({ id: ++lockIds, file, message: error.message })),
      ];
    });
  }

  /**
   * Reads a locked PDF again with `password`: attached when it is right, still locked (saying the password
   * is not right) when not. The password is used for this read only, and kept nowhere.
   */
  function unlock(id: number, password: string): Promise<void> {
    const entry = locked.value.find((l) => l.id === id);
    if (!entry) return queue;
    errors.value = [];
    return enqueue(async () => {
      const result = await read([entry.file], password);
      settle(result);
      const still = result.locked[0];
      locked.value = locked.value.flatMap((l) =>
        l.id !== id ? [l] : still ? [{ ...l, message: still.error.message }] : [],
      );
    });
  }

  function remove(id: string): void {
    files.value = files.value.filter((file) => file.id !== id);
  }

  /** Drops a locked PDF without reading it. */
  function forget(id: number): void {
    locked.value = locked.value.filter((l) => l.id !== id);
  }

  /** The files for the question being asked; the box is empty afterwards. */
  function take(): Attachment[] {
    const taken = [...files.value];
    files.value = [];
    errors.value = [];
    return taken;
  }

  return {
    files,
    errors,
    locked,
    progress,
    busy: computed(() => reading.value > 0),
    add,
    unlock,
    remove,
    forget,
    /** Stops reading the file being read (a long PDF, say); the files after it are read. */
    cancel() {
      current?.abort();
    },
    take,
    /** Puts files back in the box (a question the conductor could not plan). */
    restore(list: readonly Attachment[]) {
      files.value = list;
    },
  };
}

export type AttachmentsState = ReturnType<typeof createAttachments>;
