/**
 * An image's pixel size from its header, before anything decodes it: a 30,000 × 30,000 PNG of a few
 * kilobytes would take gigabytes to decode, so its size is checked first. And the size an image is sent
 * at: what every provider that takes images keeps without scaling it down itself.
 */
import type { ImageMediaType } from '../shared/chat.ts';

export interface PixelSize {
  width: number;
  height: number;
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function jpegSize(bytes: Uint8Array): PixelSize | undefined {
  const data = view(bytes);
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] ?? 0;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Start of frame (baseline, progressive, lossless...); C4 (Huffman), C8 and CC (arithmetic) are not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: data.getUint16(at + 5), width: data.getUint16(at + 7) };
    at += 2 + data.getUint16(at + 2);
  }
  return undefined;
}

function webpSize(bytes: Uint8Array): PixelSize | undefined {
  const data = view(bytes);
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X' && bytes.length >= 30) {
    const u24 = (at: number) => data.getUint16(at, true) + ((bytes[at + 2] ?? 0) << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = data.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && bytes.length >= 30)
    return { width: data.getUint16(26, true) & 0x3fff, height: data.getUint16(28, true) & 0x3fff };
  return undefined;
}

/** The pixel size in an image's header, or undefined when the header is cut short or damaged. */
export function imageSize(bytes: Uint8Array, mime: ImageMediaType): PixelSize | undefined {
  try {
    if (mime === 'image/png' && bytes.length >= 24)
      return { width: view(bytes).getUint32(16), height: view(bytes).getUint32(20) };
    if (mime === 'image/gif' && bytes.length >= 10)
      return { width: view(bytes).getUint16(6, true), height: view(bytes).getUint16(8, true) };
    if (mime === 'image/webp') return webpSize(bytes);
    return jpegSize(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The largest image Baton sends: at most 1568 px on its long edge and 1.2 megapixels. Anthropic scales
 * down anything past 1568 px on the long edge or ~1,600 tokens (width × height / 750 = 1.2 MP) and
 * recommends sending no more (https://docs.anthropic.com/en/docs/build-with-claude/vision#evaluate-image-size);
 * OpenAI's high detail fits an image within 2048 × 2048, then its short side within 768 px
 * (https://platform.openai.com/docs/guides/images-vision#calculating-costs), which such an image already
 * nearly is; Gemini tiles any size in 768-px tiles (https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens).
 * So a larger image would cost upload time and bytes for detail no provider looks at.
 */
export const IMAGE_LIMITS = {
  longEdge: 1568,
  pixels: 1_200_000,
  /**
   * Bytes of one image as sent: Anthropic refuses an image whose base64 exceeds 5 MB (5,242,880
   * characters), which is 3,932,160 bytes before encoding.
   */
  bytes: 3_932_160,
} as const;

/** The size to send an image of `size` at: itself when within `IMAGE_LIMITS`, else scaled to fit both. */
export function sendSize(size: PixelSize): PixelSize {
  const { width, height } = size;
  const scale = Math.min(
    1,
    IMAGE_LIMITS.longEdge / Math.max(width, height),
    Math.sqrt(IMAGE_LIMITS.pixels / (width * height)),
  );
  if (scale >= 1) return { width, height };
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}
