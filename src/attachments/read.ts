/**
 * Reading attached files: a `File` becomes an `Attachment` (kind, content hash, text, a PDF's pages, an
 * image ready to send), or an AttachmentError that names the file and what is wrong with it. A turn's
 * files are read one after another; one bad file does not lose the others.
 */
import type { ImageMediaType } from '../shared/chat.ts';
import { quotedName } from '../shared/file-names.ts';
import { contentHash } from './hash.ts';
import { prepareImage } from './image.ts';
import { detectKind, SNIFF_BYTES } from './kind.ts';
import { ATTACHMENT_LIMITS, AttachmentError, checkFileSize, checkTurn } from './limits.ts';
import type { PdfReader } from './pdf-reader.ts';
import { decodeText } from './text.ts';
import type { Attachment } from './types.ts';

/** Where reading one file is: its bytes, a PDF's page `page` of `pages`, or an image being prepared. */
export type ReadProgress =
  | { file: string; stage: 'reading' | 'image' }
  | { file: string; stage: 'pdf'; page: number; pages: number };

export interface ReadOptions {
  /** Reads PDFs (pdf-reader.ts's `createPdfReader()`, kept for the page's life). */
  pdf: PdfReader;
  signal?: AbortSignal;
  /** A signal for one file of a turn's (its own Cancel), in place of `signal`. */
  signalFor?: (file: File) => AbortSignal;
  onProgress?: (progress: ReadProgress) => void;
  /** A PDF's password, when the user gave one. */
  password?: string;
}

async function bytesOf(file: Blob, name: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await file.arrayBuffer());
  } catch {
    throw new AttachmentError(
      'file-unreadable',
      name,
      `${quotedName(name)} could not be read: it may have been moved, changed or deleted since it was picked.`,
    );
  }
}

/** Reads one file. Throws an AttachmentError naming the file when it cannot be attached. */
export async function readAttachment(file: File, options: ReadOptions): Promise<Attachment> {
  const { name } = file;
  const cancelled = () =>
    new AttachmentError('cancelled', name, `Reading ${quotedName(name)} was cancelled.`);
  if (options.signal?.aborted) throw cancelled();
  options.onProgress?.({ file: name, stage: 'reading' });
  // The kind from the first bytes, and the size checked, before the whole file is read.
  const { kind, mime } = detectKind(name, file.type, await bytesOf(file.slice(0, SNIFF_BYTES), name));
  checkFileSize(name, kind, file.size);
  const bytes = await bytesOf(file, name);
  const base = { id: await contentHash(bytes), name, mime, size: file.size, blob: file };
  if (options.signal?.aborted) throw cancelled();
  if (kind === 'pdf') {
    const { pages, pagesWithoutText } = await options.pdf.read(name, bytes, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      limits: { pages: ATTACHMENT_LIMITS.pdfPages, textBytes: ATTACHMENT_LIMITS.pdfTextBytes },
      onProgress: ({ page, pages: count }) =>
        options.onProgress?.({ file: name, stage: 'pdf', page, pages: count }),
    });
    return { ...base, kind, pages, pagesWithoutText };
  }
  if (kind === 'image') {
    options.onProgress?.({ file: name, stage: 'image' });
    const imageMime = mime as ImageMediaType;
    return { ...base, kind, mime: imageMime, ...(await prepareImage(name, file, bytes, imageMime)) };
  }
  return { ...base, kind, ...decodeText(bytes) };
}

export interface ReadResult {
  attachments: Attachment[];
  /** One per file that was not attached (or one for the whole turn, with no file name). */
  errors: AttachmentError[];
  /** Names of files left out because the same content is already attached. */
  duplicates: string[];
  /**
   * PDFs that need a password (or were given a wrong one), each with why: not in `errors`, since the page
   * asks for the password and reads them again.
   */
  locked: { file: File; error: AttachmentError }[];
}

const PASSWORD_CODES: readonly string[] = ['pdf-password', 'pdf-wrong-password'];

/**
 * Reads the files added to a turn, given what the turn already holds: the turn's limits first (nothing
 * is read when they are broken), then each file in order. Never throws.
 */
export async function readAttachments(
  files: readonly File[],
  already: readonly Pick<Attachment, 'id' | 'name' | 'size'>[],
  options: ReadOptions,
): Promise<ReadResult> {
  const result: ReadResult = { attachments: [], errors: [], duplicates: [], locked: [] };
  try {
    checkTurn([...already, ...files]);
  } catch (error) {
    result.errors.push(error as AttachmentError);
    return result;
  }
  const ids = new Set(already.map((a) => a.id));
  for (const file of files) {
    try {
      const signal = options.signalFor?.(file) ?? options.signal;
      const attachment = await readAttachment(file, { ...options, ...(signal ? { signal } : {}) });
      if (ids.has(attachment.id)) result.duplicates.push(file.name);
      else {
        ids.add(attachment.id);
        result.attachments.push(attachment);
      }
    } catch (error) {
      if (error instanceof AttachmentError && PASSWORD_CODES.includes(error.code)) {
        result.locked.push({ file, error });
        continue;
      }
      result.errors.push(
        error instanceof AttachmentError
          ? error
          : new AttachmentError(
              'file-unreadable',
              file.name,
              `${quotedName(file.name)} could not be read: ${String(error)}`,
            ),
      );
    }
  }
  return result;
}
