/**
 * An attached image, made ready on the page: its bytes kept as they are, a copy within what providers
 * take when it is larger (`IMAGE_LIMITS`), and a thumbnail for its chip. `createImageBitmap` decodes off
 * the main thread; the copy is scaled by `createImageBitmap`'s own resize and encoded by an
 * `OffscreenCanvas`.
 */
import type { ImageMediaType } from '../shared/chat.ts';
import { quotedName } from '../shared/file-names.ts';
import { IMAGE_LIMITS, imageSize, type PixelSize, sendSize } from './image-size.ts';
import { ATTACHMENT_LIMITS, AttachmentError } from './limits.ts';
import type { EncodedImage } from './types.ts';

/** The thumbnail's long edge, in pixels: twice the chip's 80 CSS px, for high-density screens. */
export const THUMBNAIL_EDGE = 160;

export interface PreparedImage {
  image: EncodedImage;
  downscaled?: EncodedImage;
  thumbnail: Blob;
}

/**
 * Whether a GIF is animated: OpenAI takes only still GIFs, Anthropic reads only the first frame, so an
 * animated one is sent as its first frame, a PNG. Its frames start with a graphic control extension each.
 */
export function isAnimatedGif(bytes: Uint8Array): boolean {
  let frames = 0;
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0x21 && bytes[i + 1] === 0xf9 && bytes[i + 2] === 0x04 && ++frames > 1) return true;
  }
  return false;
}

/** The types to try for a copy of an image of type `mime`, best first (JPEG last: it has no transparency). */
function encodings(mime: ImageMediaType): { type: ImageMediaType; quality?: number }[] {
  const jpeg = { type: 'image/jpeg' as const, quality: 0.85 };
  const webp = { type: 'image/webp' as const, quality: 0.9 };
  if (mime === 'image/jpeg') return [jpeg];
  if (mime === 'image/webp') return [webp, jpeg];
  // PNG (and a GIF's first frame): lossless first, so text in a screenshot stays sharp.
  return [{ type: 'image/png' }, webp, jpeg];
}

async function scaled(source: ImageBitmap, size: PixelSize): Promise<ImageBitmap> {
  return createImageBitmap(source, {
    resizeWidth: size.width,
    resizeHeight: size.height,
    resizeQuality: 'high',
  });
}

/** Encodes a bitmap as `type`; undefined when this browser cannot write that type. */
async function encodeAs(
  bitmap: ImageBitmap,
  type: ImageMediaType,
  quality?: number,
): Promise<Blob | undefined> {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  if (!context) return undefined;
  // JPEG has no transparency: what was transparent becomes white, not black.
  if (type === 'image/jpeg') {
    context.fillStyle = '#fff';
    context.fillRect(0, 0, bitmap.width, bitmap.height);
  }
  context.drawImage(bitmap, 0, 0);
  const blob = await canvas.convertToBlob({ type, ...(quality !== undefined ? { quality } : {}) });
  // A browser that cannot write a type writes PNG instead, and says so in the blob's type.
  return blob.type === type ? blob : undefined;
}

async function copyWithin(name: string, source: ImageBitmap, mime: ImageMediaType): Promise<EncodedImage> {
  const size = sendSize({ width: source.width, height: source.height });
  const bitmap = await scaled(source, size);
  try {
    for (const { type, quality } of encodings(mime)) {
      const blob = await encodeAs(bitmap, type, quality);
      if (blob && blob.size <= IMAGE_LIMITS.bytes)
        return { mime: type, ...size, bytes: new Uint8Array(await blob.arrayBuffer()) };
    }
  } finally {
    bitmap.close();
  }
  throw new AttachmentError(
    'image-unreadable',
    name,
    `${quotedName(name)} could not be made small enough to send (${IMAGE_LIMITS.bytes} bytes at ${size.width} × ${size.height} px).`,
  );
}

async function thumbnailOf(source: ImageBitmap): Promise<Blob> {
  const scale = Math.min(1, THUMBNAIL_EDGE / Math.max(source.width, source.height));
  const bitmap = await scaled(source, {
    width: Math.max(1, Math.round(source.width * scale)),
    height: Math.max(1, Math.round(source.height * scale)),
  });
  try {
    return (
      (await encodeAs(bitmap, 'image/webp', 0.8)) ??
      (await encodeAs(bitmap, 'image/png')) ??
      new Blob([], { type: 'image/png' })
    );
  } finally {
    bitmap.close();
  }
}

/** Whether an image is sent as a copy: more pixels or bytes than providers take, or an animated GIF. */
export function needsCopy(size: PixelSize, bytes: Uint8Array, mime: ImageMediaType): boolean {
  const within = sendSize(size);
  return (
    within.width !== size.width ||
    within.height !== size.height ||
    bytes.byteLength > IMAGE_LIMITS.bytes ||
    (mime === 'image/gif' && isAnimatedGif(bytes))
  );
}

/**
 * Reads an image of a type providers take (kind.ts checked its bytes): its pixel size, a copy within
 * `IMAGE_LIMITS` when it is larger (or an animated GIF), and a thumbnail. Throws an AttachmentError
 * naming the file when it is too many pixels to decode or does not decode.
 */
export async function prepareImage(
  name: string,
  blob: Blob,
  bytes: Uint8Array,
  mime: ImageMediaType,
): Promise<PreparedImage> {
  const header = imageSize(bytes, mime);
  if (header && header.width * header.height > ATTACHMENT_LIMITS.imagePixels) {
    throw new AttachmentError(
      'image-too-many-pixels',
      name,
      `${quotedName(name)} is ${header.width} × ${header.height} pixels: an image may be at most ${
        ATTACHMENT_LIMITS.imagePixels / 1_000_000
      } megapixels.`,
    );
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch {
    throw new AttachmentError(
      'image-unreadable',
      name,
      `${quotedName(name)} could not be read as an image: it may be damaged.`,
    );
  }
  try {
    const size = { width: bitmap.width, height: bitmap.height };
    const [downscaled, thumbnail] = await Promise.all([
      needsCopy(size, bytes, mime) ? copyWithin(name, bitmap, mime) : undefined,
      thumbnailOf(bitmap),
    ]);
    return { image: { mime, ...size, bytes }, ...(downscaled ? { downscaled } : {}), thumbnail };
  } finally {
    bitmap.close();
  }
}
