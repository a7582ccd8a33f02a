/** One message of a chat: what the page sends a cloud worker, and what the thread sends its engine. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * A user turn whose content may be parts: text, an attached file's text, images. Only user turns carry
 * parts: OpenAI takes image parts in user messages only (system and assistant content is text), Anthropic's
 * system prompt is text, and an answer is text. The on-device engines take `ChatMessage` alone.
 */
export interface UserPartsMessage {
  role: 'user';
  content: MessageContent;
}

/** What a cloud worker's transport is sent: text messages, and user turns that may hold parts. */
export type PartsMessage = ChatMessage | UserPartsMessage;

export type MessageContent = string | readonly ContentPart[];

export type ContentPart = TextPart | ImagePart;

/** The image types every provider that takes images accepts (OpenAI, Anthropic, Gemini: PNG, JPEG, WebP, GIF). */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

export interface TextPart {
  type: 'text';
  text: string;
  /** The attachment this text was read from (its content hash), when it is a file's text. */
  attachment?: string;
}

export interface ImagePart {
  type: 'image';
  mediaType: ImageMediaType;
  /** The image's bytes in base64 (no `data:` prefix): how every provider takes an inline image. */
  data: string;
  /** The attachment the image is (its content hash). */
  attachment?: string;
  /** Its pixel size as sent, for the provider's image-token rule (never sent itself). */
  width?: number;
  height?: number;
}

/** The text of a message's content: a string as it is, parts' text joined (images leave nothing). */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

export function hasImages(content: MessageContent): boolean {
  return typeof content !== 'string' && content.some((part) => part.type === 'image');
}

const encoder = new TextEncoder();

/**
 * The bytes of a request's messages that are attachments, as they go in the body: an image's base64
 * (one byte a character), an attached file's text in UTF-8 (before JSON escaping, which the request body
 * adds). The egress ledger records it beside the request's total `bytesOut`.
 */
export function attachmentBytes(messages: readonly PartsMessage[]): number {
  return Object.values(attachmentBytesById(messages)).reduce((sum, bytes) => sum + bytes, 0);
}

/** The same bytes by attachment (content hash): how much of which document a request carries. */
export function attachmentBytesById(messages: readonly PartsMessage[]): Record<string, number> {
  const bytes: Record<string, number> = {};
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.attachment === undefined) continue;
      const size = part.type === 'image' ? part.data.length : encoder.encode(part.text).byteLength;
      bytes[part.attachment] = (bytes[part.attachment] ?? 0) + size;
    }
  }
  return bytes;
}

const partsOf = (content: MessageContent): readonly ContentPart[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

/** Two turns of one role as one: strings joined by a blank line, parts in order once either has an image. */
function joinContent(first: MessageContent, second: MessageContent): MessageContent {
  if (!hasImages(first) && !hasImages(second)) return `${contentText(first)}\n\n${contentText(second)}`;
  return [...partsOf(first), ...partsOf(second)];
}

/**
 * The messages with each run of consecutive user turns, or assistant turns, joined into one turn, for an API
 * that requires user and assistant to alternate: Anthropic's Messages API, and DeepSeek's reasoner (a step
 * sends the question, then its task: two user turns). System messages stay where they are.
 */
export function alternatingTurns(messages: readonly PartsMessage[]): PartsMessage[] {
  const turns: PartsMessage[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (message.role === 'system' || last?.role !== message.role) turns.push(message);
    else if (last.role === 'assistant')
      turns[turns.length - 1] = { role: 'assistant', content: `${last.content}\n\n${message.content}` };
    else turns[turns.length - 1] = { role: 'user', content: joinContent(last.content, message.content) };
  }
  return turns;
}

/** A message as text (an attached file's text kept, images left out): for a model that reads text only. */
export function textMessage(message: PartsMessage): ChatMessage {
  return { role: message.role, content: contentText(message.content) };
}
