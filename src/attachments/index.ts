/**
 * Attachments: files, PDFs and images read on the page, ready to be sent as parts of a user turn.
 *
 *   readAttachments(files, already, { pdf: createPdfReader(), onProgress, signal })  → attachments, errors
 *   attachmentParts(attachment)                       → the parts a step is sent (shared/chat.ts ContentPart)
 *   attachmentTokens(attachment, model)               → prompt tokens, by the model's documented image rule
 *   ATTACHMENT_LIMITS, IMAGE_LIMITS                    → what the page can show before a file is picked
 */

export type { PdfProgress } from '../shared/pdf-text.ts';
export { contentHash } from './hash.ts';
export { IMAGE_LIMITS, type PixelSize } from './image-size.ts';
export { ATTACHMENT_LIMITS, AttachmentError, type AttachmentErrorCode, checkTurn } from './limits.ts';
export { attachmentParts, attachmentText } from './parts.ts';
export { createPdfReader, type PdfReader, type PdfText, pdfReaderOver } from './pdf-reader.ts';
export {
  type ReadOptions,
  type ReadProgress,
  type ReadResult,
  readAttachment,
  readAttachments,
} from './read.ts';
export { NOT_UTF8_NOTE } from './text.ts';
export {
  type AttachmentTokens,
  attachmentTokens,
  type ImageTokenRule,
  imageTokenRule,
  imageTokens,
} from './tokens.ts';
export * from './types.ts';
