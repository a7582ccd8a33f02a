/** An attached file as Baton read it: what a step can be sent, and what the page shows on its chip. */
import type { ImageMediaType } from '../shared/chat.ts';

export type TextKind = 'text' | 'code' | 'markdown' | 'csv' | 'json';
export type AttachmentKind = TextKind | 'pdf' | 'image';

export const TEXT_KINDS: readonly TextKind[] = ['text', 'code', 'markdown', 'csv', 'json'];

interface AttachmentBase {
  /** SHA-256 of the file's bytes, in hex: the same file attached twice is one attachment. */
  id: string;
  /** The file's name as the user's system gave it (untrusted text: shown inert, never as markup). */
  name: string;
  kind: AttachmentKind;
  /** The type Baton read it as (from its bytes first, then its name): `text/csv`, `application/pdf`, ... */
  mime: string;
  /** Bytes of the file. */
  size: number;
  /** The file as attached, for storage (IndexedDB keeps Blobs as they are). */
  blob: Blob;
}

/** How a text file's bytes were decoded. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface TextAttachment extends AttachmentBase {
  kind: TextKind;
  text: string;
  encoding: TextEncodingName;
  /** Said on the chip when the text was not UTF-8 ("not UTF-8: read as windows-1252"). */
  note?: string;
}

export interface PdfAttachment extends AttachmentBase {
  kind: 'pdf';
  /** Each page's text, in order (an empty string for a page with no text layer). */
  pages: string[];
  /** Pages (1-based) with no text layer: images of text, which are not read. */
  pagesWithoutText: number[];
}

/** An image as it is sent: its type, size in pixels and bytes. */
export interface EncodedImage {
  mime: ImageMediaType;
  width: number;
  height: number;
  bytes: Uint8Array;
}

export interface ImageAttachment extends AttachmentBase {
  kind: 'image';
  mime: ImageMediaType;
  /** The image as attached (its pixel size as shown, EXIF orientation applied). */
  image: EncodedImage;
  /** A copy within what providers take, when the image is larger (`IMAGE_LIMITS`); else absent. */
  downscaled?: EncodedImage;
  /** A small copy for the chip. */
  thumbnail: Blob;
}

export type Attachment = TextAttachment | PdfAttachment | ImageAttachment;

/** The image a step is sent: the downscaled copy when there is one, else the image as attached. */
export function imageToSend(attachment: ImageAttachment): EncodedImage {
  return attachment.downscaled ?? attachment.image;
}
