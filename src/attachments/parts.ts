/**
 * An attachment as the parts of a user turn: a file's text inside a `<file>` tag that names it (so the
 * model can tell the files apart and from the task), or an image after a tag that names it. Every part
 * carries the attachment's id, so the request's attachment bytes can be counted (shared/chat.ts).
 */
import type { ContentPart } from '../shared/chat.ts';
import { type Attachment, imageToSend } from './types.ts';

/** A file name as an attribute value: one line, with the characters that would end or open a tag escaped. */
function attribute(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** Base64 of bytes: the browser's own encoder where it has one, else `btoa` over chunks. */
export function base64Of(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A PDF's pages as text, each headed by its number; a page with no text layer says so. */
function pdfBody(pages: readonly string[]): string {
  return pages
    .map((text, i) => (text ? `[page ${i + 1}]\n${text}` : `[page ${i + 1}: no text layer]`))
    .join('\n\n');
}

/** The text a step is sent for an attachment: its file's text in its tag, or the tag naming an image. */
export function attachmentText(attachment: Attachment): string {
  const name = attribute(attachment.name);
  if (attachment.kind === 'image') {
    const { width, height } = imageToSend(attachment);
    return `<file name="${name}" type="image" width="${width}" height="${height}"/>\n`;
  }
  if (attachment.kind === 'pdf') {
    return `<file name="${name}" type="pdf" pages="${attachment.pages.length}">\n${pdfBody(attachment.pages)}\n</file>\n`;
  }
  return `<file name="${name}" type="${attachment.kind}">\n${attachment.text}\n</file>\n`;
}

/** The parts a step is sent for one attachment: its text, and for an image the image itself after its tag. */
export function attachmentParts(attachment: Attachment): ContentPart[] {
  const text = attachmentText(attachment);
  if (attachment.kind !== 'image') return [{ type: 'text', text, attachment: attachment.id }];
  const image = imageToSend(attachment);
  return [
    { type: 'text', text },
    {
      type: 'image',
      mediaType: image.mime,
      data: base64Of(image.bytes),
      attachment: attachment.id,
      width: image.width,
      height: image.height,
    },
  ];
}
