/**
 * A run's files in its JSON export: each file's bytes in base64 with what Baton read from it (its text,
 * a PDF's pages, an image as sent), and back. An imported file is taken only when its bytes hash to its
 * id (an export is untrusted: a file that claims another's hash would be stored under it), and what Baton
 * read from it is read again from those bytes: the hash says nothing of the rest of the file's entry.
 */
import { z } from 'zod';
import type { ImageMediaType } from '../shared/chat.ts';
import { quotedName } from '../shared/file-names.ts';
import { contentHash } from './hash.ts';
import { needsCopy, prepareImage } from './image.ts';
import { imageSize } from './image-size.ts';
import { detectKind, SNIFF_BYTES } from './kind.ts';
import { AttachmentError } from './limits.ts';
import { base64Of } from './parts.ts';
import { createPdfReader, type PdfReader } from './pdf-reader.ts';
import { decodeText } from './text.ts';
import { type Attachment, type EncodedImage, TEXT_KINDS } from './types.ts';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

const ExportedImageSchema = z.object({
  mime: z.enum(IMAGE_TYPES),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  base64: z.string(),
});

const ExportedFileSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  kind: z.enum([...TEXT_KINDS, 'pdf', 'image']),
  mime: z.string(),
  size: z.number().int().nonnegative(),
  base64: z.string(),
  text: z.string().optional(),
  encoding: z.enum(['utf-8', 'utf-16le', 'utf-16be', 'windows-1252']).optional(),
  note: z.string().optional(),
  pages: z.array(z.string()).optional(),
  pagesWithoutText: z.array(z.number().int().positive()).optional(),
  image: ExportedImageSchema.optional(),
  downscaled: ExportedImageSchema.optional(),
});

export type ExportedFile = z.infer<typeof ExportedFileSchema>;

export function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const exportedImage = (image: EncodedImage) => ({
  mime: image.mime,
  width: image.width,
  height: image.height,
  base64: base64Of(image.bytes),
});

/** A stored file as its export writes it (its name is the run's: in the run record's references). */
export async function exportFile(attachment: Attachment): Promise<ExportedFile> {
  const base = {
    id: attachment.id,
    kind: attachment.kind,
    mime: attachment.mime,
    size: attachment.size,
    base64: base64Of(new Uint8Array(await attachment.blob.arrayBuffer())),
  };
  if (attachment.kind === 'pdf')
    return { ...base, pages: attachment.pages, pagesWithoutText: attachment.pagesWithoutText };
  if (attachment.kind === 'image') {
    return {
      ...base,
      image: exportedImage(attachment.image),
      ...(attachment.downscaled ? { downscaled: exportedImage(attachment.downscaled) } : {}),
    };
  }
  return {
    ...base,
    text: attachment.text,
    encoding: attachment.encoding,
    ...(attachment.note ? { note: attachment.note } : {}),
  };
}

/** How an import reads a file's bytes again (the page's own readers by default; node's tests give theirs). */
export interface Rereaders {
  /** A PDF reader for this import's PDFs, started on the first and stopped after the last. */
  pdf?: () => PdfReader;
  /** Prepares an image as attaching it does (the browser's decoder), for the copy a large one is sent as. */
  image?: typeof prepareImage;
}

/**
 * What Baton reads from a file, read again from its bytes: the export's own text, pages and image copies
 * are never taken (the hash covers the bytes only, so a file whose bytes match could carry any text).
 * Throws an AttachmentError naming the file when its bytes cannot be read as they were on attaching.
 */
async function reread(
  id: string,
  name: string,
  declaredMime: string,
  bytes: Uint8Array,
  readers: { pdf: () => PdfReader; image: typeof prepareImage },
): Promise<Attachment> {
  const { kind, mime } = detectKind(name, declaredMime, bytes.subarray(0, SNIFF_BYTES));
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime });
  const base = { id, name, mime, size: bytes.byteLength, blob };
  // The reader takes its bytes over (transfers them): it gets a copy, the blob keeps these.
  if (kind === 'pdf') return { ...base, kind, ...(await readers.pdf().read(name, bytes.slice())) };
  if (kind === 'image') {
    const imageMime = mime as ImageMediaType;
    const size = imageSize(bytes, imageMime);
    if (!size)
      throw new AttachmentError('image-unreadable', name, `${quotedName(name)} is not a readable image.`);
    const image: EncodedImage = { mime: imageMime, ...size, bytes };
    // The copy sent in its place, made again only when attaching would have made one.
    const downscaled = needsCopy(size, bytes, imageMime)
      ? (await readers.image(name, blob, bytes, imageMime)).downscaled
      : undefined;
    const shown = downscaled ?? image;
    return {
      ...base,
      kind,
      mime: imageMime,
      image,
      ...(downscaled ? { downscaled } : {}),
      thumbnail: new Blob([shown.bytes as Uint8Array<ArrayBuffer>], { type: shown.mime }),
    };
  }
  return { ...base, kind, ...decodeText(bytes) };
}

/**
 * The files of an export as attachments (named by the run's references, by id), each read again from
 * its bytes, and a line for each one left out: malformed, bytes that do not match its hash, or bytes that
 * cannot be read as the kind of file they are.
 */
export async function importFiles(
  raw: unknown,
  names: ReadonlyMap<string, string>,
  rereaders: Rereaders = {},
): Promise<{ files: Attachment[]; problems: string[] }> {
  const out = { files: [] as Attachment[], problems: [] as string[] };
  if (!Array.isArray(raw)) return out;
  let reader: PdfReader | undefined;
  const readers = {
    pdf: () => {
      reader ??= (rereaders.pdf ?? createPdfReader)();
      return reader;
    },
    image: rereaders.image ?? prepareImage,
  };
  try {
    for (const [i, item] of raw.entries()) {
      const parsed = ExportedFileSchema.safeParse(item);
      if (!parsed.success) {
        out.problems.push(`File ${i} of the export is malformed and was left out.`);
        continue;
      }
      const file = parsed.data;
      const name = names.get(file.id) ?? `file ${i}`;
      let bytes: Uint8Array;
      try {
        bytes = bytesOfBase64(file.base64);
      } catch {
        out.problems.push(`“${name}” in the export is not base64 and was left out.`);
        continue;
      }
      if ((await contentHash(bytes)) !== file.id) {
        out.problems.push(`“${name}” in the export does not match its hash and was left out.`);
        continue;
      }
      try {
        out.files.push(await reread(file.id, name, file.mime, bytes, readers));
      } catch (error) {
        const why = error instanceof AttachmentError ? error.message : String(error);
        out.problems.push(`“${name}” in the export could not be read again and was left out: ${why}`);
      }
    }
  } finally {
    reader?.dispose();
  }
  return out;
}
