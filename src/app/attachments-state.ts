/**
 * The files attached to the question being written: read as they are added (by the button, a drop or a
 * paste), shown as chips, taken by the question when it is asked. A file that cannot be attached is an
 * error naming it and the limit; the others are kept. The PDF reader's thread starts on the first PDF and
 * is kept for the page's life.
 */
import { computed, signal } from '@preact/signals';
import { createPdfReader, type PdfReader } from '../attachments/pdf-reader.ts';
import { type ReadProgress, readAttachments } from '../attachments/read.ts';
import type { Attachment } from '../attachments/types.ts';
import { quotedName } from '../shared/file-names.ts';

export interface AttachmentsServices {
  /** The PDF reader (default: the page's, in its own thread). */
  pdfReader?: () => PdfReader;
}

export function createAttachments(services: AttachmentsServices = {}) {
  const files = signal<readonly Attachment[]>([]);
  const errors = signal<readonly string[]>([]);
  const progress = signal<ReadProgress | undefined>(undefined);
  const reading = signal(0);
  let reader: PdfReader | undefined;
  let queue: Promise<void> = Promise.resolve();

  /** Reads `added` after any files still being read, so the turn's limits count them all. */
  function add(added: readonly File[]): Promise<void> {
    if (added.length === 0) return queue;
    reading.value++;
    errors.value = [];
    queue = queue.then(async () => {
      try {
        reader ??= services.pdfReader?.() ?? createPdfReader();
        const result = await readAttachments(added, files.value, {
          pdf: reader,
          onProgress: (p) => {
            progress.value = p;
          },
        });
        files.value = [...files.value, ...result.attachments];
        errors.value = [
          ...result.errors.map((error) => error.message),
          ...result.duplicates.map((name) => `${quotedName(name)} is already attached (the same content).`),
        ];
      } finally {
        progress.value = undefined;
        reading.value--;
      }
    });
    return queue;
  }

  function remove(id: string): void {
    files.value = files.value.filter((file) => file.id !== id);
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
    progress,
    busy: computed(() => reading.value > 0),
    add,
    remove,
    take,
    /** Puts files back in the box (a question the conductor could not plan). */
    restore(list: readonly Attachment[]) {
      files.value = list;
    },
  };
}

export type AttachmentsState = ReturnType<typeof createAttachments>;
