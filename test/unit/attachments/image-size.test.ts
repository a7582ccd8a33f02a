import { describe, expect, it } from 'vitest';
import { isAnimatedGif } from '../../../src/attachments/image.ts';
import { IMAGE_LIMITS, imageSize, sendSize } from '../../../src/attachments/image-size.ts';

const bytes = (...values: (number | string)[]) =>
  Uint8Array.from(values.flatMap((v) => (typeof v === 'string' ? [...Buffer.from(v, 'latin1')] : [v])));
const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const be16 = (n: number) => [(n >> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >> 8) & 255];
const le24 = (n: number) => [n & 255, (n >> 8) & 255, (n >> 16) & 255];

describe('imageSize reads the pixel size from the header', () => {
  it('of a PNG (IHDR) and a GIF (logical screen)', () => {
    const png = bytes(0x89, 'PNG', 13, 10, 26, 10, 0, 0, 0, 13, 'IHDR', ...be32(4032), ...be32(3024), 8, 6);
    expect(imageSize(png, 'image/png')).toEqual({ width: 4032, height: 3024 });
    expect(imageSize(bytes('GIF89a', ...le16(320), ...le16(200)), 'image/gif')).toEqual({
      width: 320,
      height: 200,
    });
  });

  it('of a JPEG: the first start-of-frame after the other segments, not a Huffman table', () => {
    const app0 = [0xff, 0xe0, ...be16(16), ...bytes('JFIF', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0)];
    const dht = [0xff, 0xc4, ...be16(5), 0, 0, 0];
    const sof2 = [0xff, 0xc2, ...be16(17), 8, ...be16(1080), ...be16(1920), 3];
    const jpeg = bytes(0xff, 0xd8, ...app0, ...dht, ...sof2, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 1920, height: 1080 });
  });

  it('of a WebP, lossy (VP8), lossless (VP8L) and extended (VP8X)', () => {
    const riff = (chunk: string, ...body: number[]) =>
      bytes('RIFF', 0, 0, 0, 0, 'WEBP', chunk, 0, 0, 0, 0, ...body);
    const vp8 = riff('VP8 ', 0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(640), ...le16(480));
    expect(imageSize(vp8, 'image/webp')).toEqual({ width: 640, height: 480 });
    const bits = (800 - 1) | ((600 - 1) << 14);
    const vp8l = riff('VP8L', 0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255);
    expect(imageSize(vp8l, 'image/webp')).toEqual({ width: 800, height: 600 });
    const vp8x = riff('VP8X', 0x10, 0, 0, 0, ...le24(5000 - 1), ...le24(7000 - 1));
    expect(imageSize(vp8x, 'image/webp')).toEqual({ width: 5000, height: 7000 });
  });

  it('or nothing, for a header cut short', () => {
    expect(imageSize(bytes(0x89, 'PNG'), 'image/png')).toBeUndefined();
    expect(imageSize(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16), 'image/jpeg')).toBeUndefined();
  });
});

describe('sendSize', () => {
  it('keeps an image within 1568 px on its long edge and 1.2 megapixels as it is', () => {
    expect(sendSize({ width: 1092, height: 1092 })).toEqual({ width: 1092, height: 1092 });
    expect(sendSize({ width: 800, height: 600 })).toEqual({ width: 800, height: 600 });
  });

  it('scales a larger one down to fit both limits, keeping its aspect ratio', () => {
    const photo = sendSize({ width: 4032, height: 3024 });
    expect(photo.width * photo.height).toBeLessThanOrEqual(IMAGE_LIMITS.pixels);
    expect(photo.width / photo.height).toBeCloseTo(4 / 3, 2);
    const panorama = sendSize({ width: 8000, height: 1000 });
    expect(panorama).toEqual({ width: 1568, height: 196 });
    const tall = sendSize({ width: 1000, height: 3000 });
    expect(Math.max(tall.width, tall.height)).toBeLessThanOrEqual(IMAGE_LIMITS.longEdge);
  });
});

describe('isAnimatedGif', () => {
  const frame = [0x21, 0xf9, 0x04, 0, 0, 0, 0, 0, 0x2c];
  it('counts frames by their graphic control extensions', () => {
    expect(isAnimatedGif(bytes('GIF89a', ...frame, 0x3b))).toBe(false);
    expect(isAnimatedGif(bytes('GIF89a', ...frame, ...frame, 0x3b))).toBe(true);
  });
});
