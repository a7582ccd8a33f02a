/**
 * Images as the test provider receives them: OpenAI's `image_url` parts (a `data:` URL; Mistral's string
 * form too) and Anthropic's `image` blocks (a base64 source), read the way a provider reads them (the
 * format from the bytes, not from the declared type, and the pixel size from the header), and the
 * refusals each provider documents for an image it will not take.
 *
 * Written apart from src/attachments/: a provider that shared the client's image reader would share its
 * mistakes too.
 */
import { createHash } from 'node:crypto';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

/** What the provider makes of one image. */
export interface SeenImage {
  /** The type the request declared (`data:<type>;base64` or `media_type`). */
  declared: string;
  /** The format the bytes are, when they are one of the four every provider takes. */
  format?: ImageFormat;
  width?: number;
  height?: number;
  /** Decoded bytes. */
  bytes: number;
  /** Characters of base64, as in the body. */
  base64Length: number;
  /** The first 16 hex digits of the decoded bytes' SHA-256. */
  sha256: string;
}

const u16be = (b: Buffer, at: number) => b.readUInt16BE(at);

function formatOf(b: Buffer): ImageFormat | undefined {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return 'webp';
  return undefined;
}

/** Width and height from the header of an image of a known format, or undefined when it is cut short. */
function sizeOf(b: Buffer, format: ImageFormat): { width: number; height: number } | undefined {
  try {
    if (format === 'png') return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    if (format === 'gif') return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    if (format === 'webp') {
      const chunk = b.toString('latin1', 12, 16);
      if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
      if (chunk === 'VP8L') {
        const bits = b.readUInt32LE(21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    }
    // JPEG: walk the segments to the first start-of-frame marker.
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
      at += 2 + u16be(b, at + 2);
    }
  } catch {
    // A header cut short: no size.
  }
  return undefined;
}

export function seeImage(base64: string, declared: string): SeenImage {
  const bytes = Buffer.from(base64, 'base64');
  const format = formatOf(bytes);
  const size = format ? sizeOf(bytes, format) : undefined;
  return {
    declared,
    ...(format ? { format } : {}),
    ...(size ?? {}),
    bytes: bytes.length,
    base64Length: base64.length,
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
  };
}

/** One image part of a request: where it is (message i, part j) and what it holds. */
export interface ImageAt {
  message: number;
  part: number;
  /** `undefined`: not a `data:` URL (a web address, which the test provider does not fetch). */
  image?: SeenImage;
  url?: string;
}

/** Every image of an OpenAI-style request: `image_url` parts, `{url}` or (Mistral) a plain string. */
export function openaiImages(messages: readonly { content?: unknown }[]): ImageAt[] {
  const found: ImageAt[] = [];
  messages.forEach((message, i) => {
    if (!Array.isArray(message?.content)) return;
    message.content.forEach((part: { type?: unknown; image_url?: unknown }, j: number) => {
      if (part?.type !== 'image_url') return;
      const raw = part.image_url;
      const url = typeof raw === 'string' ? raw : (raw as { url?: unknown } | null)?.url;
      const match = typeof url === 'string' ? /^data:([^;,]*);base64,(.*)$/s.exec(url) : null;
      found.push(
        match
          ? { message: i, part: j, image: seeImage(match[2]!, match[1]!) }
          : { message: i, part: j, url: String(url) },
      );
    });
  });
  return found;
}

/** Every image of an Anthropic request: `image` blocks with a base64 source. */
export function anthropicImages(messages: readonly { content?: unknown }[]): ImageAt[] {
  const found: ImageAt[] = [];
  messages.forEach((message, i) => {
    if (!Array.isArray(message?.content)) return;
    message.content.forEach((block: { type?: unknown; source?: unknown }, j: number) => {
      if (block?.type !== 'image') return;
      const source = block.source as { type?: unknown; media_type?: unknown; data?: unknown } | undefined;
      if (source?.type !== 'base64' || typeof source.data !== 'string') {
        found.push({ message: i, part: j, url: String((source as { url?: unknown })?.url) });
        return;
      }
      found.push({ message: i, part: j, image: seeImage(source.data, String(source.media_type)) });
    });
  });
  return found;
}

/** The answer of the `images` model: what it was sent, so a test can check each image arrived whole. */
export function describeImages(images: readonly ImageAt[]): string {
  if (images.length === 0) return 'no images';
  const each = images.map(({ image }) =>
    image
      ? `${image.format ?? 'unknown'} ${image.width ?? '?'}x${image.height ?? '?'} ${image.bytes} bytes sha256:${image.sha256}`
      : 'a web address',
  );
  return `${images.length} image${images.length === 1 ? '' : 's'}: ${each.join('; ')}`;
}

const MEDIA_TYPES: Record<string, ImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * Image tokens as OpenAI documents them for its tile-priced models (GPT-4o, GPT-4.1): fit in 2048×2048,
 * shortest side to 768, then 85 + 170 per 512-px tile
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs).
 */
export function openaiTileTokens({ width = 0, height = 0 }: Partial<SeenImage>): number {
  if (width <= 0 || height <= 0) return 85;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Image tokens as Anthropic documents them: about width × height / 750 (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
export function anthropicAreaTokens({ width = 0, height = 0 }: Partial<SeenImage>): number {
  return Math.ceil((width * height) / 750);
}

export interface Refusal {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

/**
 * OpenAI's refusals of an image: a model that takes no images answers 400 "Invalid content type.
 * image_url is only supported by certain models." with `param` naming the part (the body quoted in
 * https://github.com/vllm-project/vllm/issues/11629, as gpt-3.5-turbo sends it); bytes that are not a PNG,
 * JPEG, GIF or WebP (or not the type declared), 400 `invalid_image_format` (quoted in
 * https://github.com/STranslate/STranslate/issues/277). Formats: https://platform.openai.com/docs/guides/images-vision#image-input-requirements
 */
export function openaiImageRefusal(images: readonly ImageAt[], textOnly: boolean): Refusal | undefined {
  const first = images[0];
  if (!first) return undefined;
  if (textOnly) {
    return {
      status: 400,
      message: 'Invalid content type. image_url is only supported by certain models.',
      type: 'invalid_request_error',
      code: null,
      param: `messages.[${first.message}].content.[${first.part}].type`,
    };
  }
  for (const { image, url } of images) {
    if (!image) {
      return {
        status: 400,
        message: `The test provider takes images as data: URLs only, not ${String(url).slice(0, 40)}.`,
        type: 'invalid_request_error',
        code: 'invalid_image_url',
        param: null,
      };
    }
    if (!image.format || MEDIA_TYPES[image.declared] !== image.format) {
      return {
        status: 400,
        message:
          "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
        type: 'invalid_request_error',
        code: 'invalid_image_format',
        param: null,
      };
    }
  }
  return undefined;
}

/** The most base64 Anthropic takes for one image: 5 MB (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
export const ANTHROPIC_IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
/** The widest and tallest image Anthropic takes, in pixels. */
export const ANTHROPIC_IMAGE_MAX_SIDE = 8000;

/**
 * Anthropic's refusals of an image, each a 400 `invalid_request_error` whose message starts with the
 * block's path, as quoted from the API in anthropics/claude-code issues: a media type outside the four
 * (#8184), base64 over 5 MB (#10612), a side over 8000 px (#4778), bytes of another format than declared
 * (#13131), bytes that are no image at all (#7399). Every Claude model takes images
 * (https://docs.anthropic.com/en/docs/about-claude/models/overview), so Anthropic documents no refusal
 * for a text-only model: one declared text-only here is refused with the same status and type, and a
 * message of ours.
 */
export function anthropicImageRefusal(images: readonly ImageAt[], textOnly: boolean): string | undefined {
  for (const { message, part, image } of images) {
    const path = `messages.${message}.content.${part}.image.source`;
    if (textOnly) return `${path}: this model does not take image input`;
    if (!image) return `${path}: the test provider takes base64 image sources only`;
    if (!(image.declared in MEDIA_TYPES))
      return `${path}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
    if (image.base64Length > ANTHROPIC_IMAGE_MAX_BASE64)
      return `${path}.base64: image exceeds 5 MB maximum: ${image.base64Length} bytes > ${ANTHROPIC_IMAGE_MAX_BASE64} bytes`;
    if (!image.format) return 'Could not process image';
    if (MEDIA_TYPES[image.declared] !== image.format)
      return `${path}.base64.data: Image does not match the provided media type ${image.declared}`;
    if ((image.width ?? 0) > ANTHROPIC_IMAGE_MAX_SIDE || (image.height ?? 0) > ANTHROPIC_IMAGE_MAX_SIDE)
      return `${path}.base64.data: At least one of the image dimensions exceed max allowed size: ${ANTHROPIC_IMAGE_MAX_SIDE} pixels`;
  }
  return undefined;
}
