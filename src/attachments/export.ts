/**
 * A run's files in its JSON export: each file's bytes in base64 with what Baton read from it (its text,
 * a PDF's pages, an image as sent), and back. An imported file is taken only when its bytes hash to its
 * id (an export is untrusted: a file that claims another's hash would be stored under it).
 */
import { z } from 'zod';
import type { ImageMediaType } from '../shared/chat.ts';
import { contentHash } from './hash.ts';
import { base64Of } from './parts.ts';
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

function bytesOfBase64(text: string): Uint8Array {
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

/**
 * The files of an export as attachments (named by the run's references, by id), and a line for each one
 * left out: malformed, or bytes that do not match its hash.
 */
export async function importFiles(
  raw: unknown,
  names: ReadonlyMap<string, string>,
): Promise<{ files: Attachment[]; problems: string[] }> {
  const out = { files: [] as Attachment[], problems: [] as string[] };
  if (!Array.isArray(raw)) return out;
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
    const blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: file.mime });
    const base = { id: file.id, name, mime: file.mime, size: bytes.byteLength, blob };
    if (file.kind === 'pdf') {
      out.files.push({
        ...base,
        kind: 'pdf',
        pages: file.pages ?? [],
        pagesWithoutText: file.pagesWithoutText ?? [],
      });
    } else if (file.kind === 'image') {
      const decode = (image: z.infer<typeof ExportedImageSchema>): EncodedImage => ({
        ...image,
        mime: image.mime as ImageMediaType,
        bytes: bytesOfBase64(image.base64),
      });
      const image = file.image ? decode(file.image) : undefined;
      if (!image) {
        out.problems.push(`“${name}” in the export has no image and was left out.`);
        continue;
      }
      const downscaled = file.downscaled ? decode(file.downscaled) : undefined;
      const shown = downscaled ?? image;
      out.files.push({
        ...base,
        kind: 'image',
        mime: image.mime,
        image,
        ...(downscaled ? { downscaled } : {}),
        thumbnail: new Blob([shown.bytes as Uint8Array<ArrayBuffer>], { type: shown.mime }),
      });
    } else {
      out.files.push({
        ...base,
        kind: file.kind,
        text: file.text ?? '',
        encoding: file.encoding ?? 'utf-8',
        ...(file.note ? { note: file.note } : {}),
      });
    }
  }
  return out;
}
