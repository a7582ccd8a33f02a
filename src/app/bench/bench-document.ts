/**
 * The document a bench's reading strategies answer from (issue 40): the user brings one file and asks
 * their questions about it, and the bench sends it whole to one strategy and as passages to the other.
 * It is read as a question's file is (src/attachments/read.ts, a PDF in the reader's thread), and refused
 * here, with why, when it has no passages to choose from (an image, a PDF without a text layer): the pair
 * would compare nothing.
 */
import { signal } from '@preact/signals';
import { AttachmentError } from '../../attachments/limits.ts';
import { passagesUnavailable } from '../../attachments/passages.ts';
import { createPdfReader, type PdfReader } from '../../attachments/pdf-reader.ts';
import { readAttachment } from '../../attachments/read.ts';
import type { Attachment } from '../../attachments/types.ts';
import { quotedName } from '../../shared/file-names.ts';

export function createBenchDocument(pdfReader: () => PdfReader = createPdfReader) {
  const document = signal<Attachment | undefined>(undefined);
  /** Why the last file picked was not taken; the document chosen before it stays. */
  const problem = signal<string | undefined>(undefined);
  const reading = signal(false);
  let reader: PdfReader | undefined;
  // The reader's thread starts on the first PDF only.
  const pdf: PdfReader = {
    read: (name, data, options) => {
      reader ??= pdfReader();
      return reader.read(name, data, options);
    },
    dispose,
  };

  async function attach(file: File): Promise<void> {
    problem.value = undefined;
    reading.value = true;
    try {
      const read = await readAttachment(file, { pdf });
      const unavailable = passagesUnavailable(read);
      if (unavailable) {
        problem.value = `${unavailable.message} The reading strategies need a document with text.`;
        return;
      }
      document.value = read;
    } catch (error) {
      problem.value =
        error instanceof AttachmentError
          ? error.message
          : `${quotedName(file.name)} could not be read: ${String(error)}`;
    } finally {
      reading.value = false;
    }
  }

  function clear(): void {
    document.value = undefined;
    problem.value = undefined;
  }

  /** Stops the PDF reader's thread, if one was started (leaving the screen). */
  function dispose(): void {
    reader?.dispose();
    reader = undefined;
  }

  return { document, problem, reading, attach, clear, dispose };
}

export type BenchDocument = ReturnType<typeof createBenchDocument>;
