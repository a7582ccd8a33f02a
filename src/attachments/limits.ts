/**
 * What Baton takes as attachments, as numbers the page can show before the user picks a file, and the
 * error that names the file and the limit it broke.
 */

import { quotedName } from '../shared/file-names.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import type { PdfFailureCode } from '../shared/pdf-text.ts';
import type { AttachmentKind } from './types.ts';

const MiB = 1024 * 1024;

export const ATTACHMENT_LIMITS = {
  /**
   * A text, code, Markdown, CSV or JSON file: 2 MB is about half a million tokens, past the context of
   * every preset model, so a larger one could not be sent whole anyway.
   */
  textFileBytes: 2 * MiB,
  /**
   * What a PDF's text may expand to, all pages together: the text file's limit, applied to what is sent,
   * so a file's tokens are bounded whatever its worker costs (a worker with no price has no spend limit).
   */
  pdfTextBytes: 2 * MiB,
  /**
   * Pages of a PDF. pdf.js's time to read every page grows with the square of their number in a flat
   * page tree (src/shared/pdf-text.ts), so this bounds a read to seconds; 2,000 pages of ordinary text
   * are past the text limit anyway.
   */
  pdfPages: 2_000,
  /** A PDF: its text is what is sent (a 32 MB PDF is mostly images and fonts); 32 MB is Anthropic's request cap. */
  pdfFileBytes: 32 * MiB,
  /** An image as attached (before it is downscaled): OpenAI's per-image limit is 20 MB. */
  imageFileBytes: 20 * MiB,
  /** Pixels of an image as attached: decoding a larger one would take gigabytes of memory. */
  imagePixels: 100_000_000,
  /** Files one turn may carry. */
  filesPerTurn: 10,
  /** Bytes of all the files of one turn together. */
  turnBytes: 64 * MiB,
} as const;

/** The per-file byte limit for a kind of file. */
export function fileLimitFor(kind: AttachmentKind): number {
  if (kind === 'pdf') return ATTACHMENT_LIMITS.pdfFileBytes;
  if (kind === 'image') return ATTACHMENT_LIMITS.imageFileBytes;
  return ATTACHMENT_LIMITS.textFileBytes;
}

export type AttachmentErrorCode =
  | 'empty-file'
  | 'file-unreadable'
  | 'file-too-large'
  | 'too-many-files'
  | 'turn-too-large'
  | 'unsupported-type'
  | 'unsupported-image'
  | 'image-unreadable'
  | 'image-too-many-pixels'
  | PdfFailureCode
  | 'pdf-reader-unavailable';

/** Why a file was not attached, said for people, naming the file (and the limit, when one was broken). */
export class AttachmentError extends Error {
  override name = 'AttachmentError';
  constructor(
    readonly code: AttachmentErrorCode,
    /** The file's name; empty for a turn's limits, which no one file broke. */
    readonly fileName: string,
    message: string,
  ) {
    super(message);
  }
}

const KIND_NAMES: Record<AttachmentKind, string> = {
  text: 'a text file',
  code: 'a code file',
  markdown: 'a Markdown file',
  csv: 'a CSV file',
  json: 'a JSON file',
  pdf: 'a PDF',
  image: 'an image',
};

/** Throws when a file of this kind and size may not be attached. */
export function checkFileSize(name: string, kind: AttachmentKind, size: number): void {
  if (size === 0)
    throw new AttachmentError('empty-file', name, `${quotedName(name)} is empty: there is nothing to send.`);
  const limit = fileLimitFor(kind);
  if (size > limit) {
    throw new AttachmentError(
      'file-too-large',
      name,
      `${quotedName(name)} is ${formatBytes(size)}: ${KIND_NAMES[kind]} may be at most ${formatBytes(limit)}.`,
    );
  }
}

/**
 * Throws when the files of one turn, those already attached and those being added, break a turn's
 * limits (how many files, how many bytes together).
 */
export function checkTurn(files: readonly { name: string; size: number }[]): void {
  if (files.length > ATTACHMENT_LIMITS.filesPerTurn) {
    throw new AttachmentError(
      'too-many-files',
      '',
      `${files.length} files: a message may carry at most ${ATTACHMENT_LIMITS.filesPerTurn}.`,
    );
  }
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > ATTACHMENT_LIMITS.turnBytes) {
    throw new AttachmentError(
      'turn-too-large',
      '',
      `These files are ${formatBytes(total)} together: a message may carry at most ${formatBytes(ATTACHMENT_LIMITS.turnBytes)}.`,
    );
  }
}
