/**
 * What kind of file an attachment is: from its first bytes (magic numbers) first, since a name or a type
 * the system guessed can be wrong, then from its name's extension and its declared type. Images only of
 * the four types every provider that takes images accepts; every other image type is refused by name.
 */
import type { ImageMediaType } from '../shared/chat.ts';
import { quotedName } from '../shared/file-names.ts';
import { AttachmentError } from './limits.ts';
import type { AttachmentKind, TextKind } from './types.ts';

/** How many of a file's first bytes `detectKind` reads. */
export const SNIFF_BYTES = 8192;

export interface DetectedKind {
  kind: AttachmentKind;
  mime: string;
}

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  signature.every((byte, i) => bytes[at + i] === byte);

/** The four image types providers take, by their signatures. */
function sendableImage(head: Uint8Array): ImageMediaType | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (/^GIF8[79]a$/.test(ascii(head, 0, 6))) return 'image/gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** ISO-BMFF brands of HEIC/HEIF and AVIF (`ftyp` box at offset 4). */
const HEIF_BRANDS = /^(heic|heix|hevc|hevx|heim|heis|mif1|msf1|avif|avis)$/;

/** Image types no provider takes (or not all of them), by their signatures: their name for the message. */
function otherImage(head: Uint8Array): string | undefined {
  // BMP: "BM", then a header whose size is one of the known DIB headers' (so a text starting "BM" is not one).
  if (ascii(head, 0, 2) === 'BM' && [12, 40, 52, 56, 64, 108, 124].includes(head[14] ?? 0) && head[15] === 0)
    return 'BMP';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF';
  if (ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    if (HEIF_BRANDS.test(brand)) return brand.startsWith('avi') ? 'AVIF' : 'HEIC';
  }
  if (startsWith(head, [0xff, 0x0a]) || startsWith(head, [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20]))
    return 'JPEG XL';
  if (startsWith(head, [0x00, 0x00, 0x01, 0x00]) && head[4] !== 0 && head[5] === 0) return 'ICO';
  if (ascii(head, 0, 4) === '8BPS') return 'Photoshop (PSD)';
  return undefined;
}

/** Extensions and declared types of images, for a file whose bytes are no image Baton can send. */
const IMAGE_NAMES: Readonly<Record<string, string>> = {
  bmp: 'BMP',
  tif: 'TIFF',
  tiff: 'TIFF',
  heic: 'HEIC',
  heif: 'HEIC',
  avif: 'AVIF',
  jxl: 'JPEG XL',
  ico: 'ICO',
  psd: 'Photoshop (PSD)',
  svg: 'SVG',
  svgz: 'SVG',
};

const SENDABLE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

/** SVG: by name, type or a `<svg` root near the start. It is markup (scripts, links), never an image sent. */
function isSvg(extension: string, declared: string, head: Uint8Array): boolean {
  if (extension === 'svg' || extension === 'svgz' || declared === 'image/svg+xml') return true;
  const start = new TextDecoder('utf-8').decode(head.subarray(0, 1024)).trimStart();
  return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(start);
}

/** Archives and documents Baton does not read, by signature: a word for the message. */
function otherBinary(head: Uint8Array, extension: string): string | undefined {
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) {
    if (['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp'].includes(extension))
      return `an office document (.${extension})`;
    return 'a zip archive';
  }
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0])) return 'an old Office document';
  return undefined;
}

const CODE_EXTENSIONS = new Set(
  (
    'js mjs cjs jsx ts mts cts tsx py pyi rb php java kt kts scala go rs c h cc cpp cxx hpp hh cs fs swift m mm ' +
    'r jl lua pl pm sh bash zsh fish ps1 bat cmd sql html htm css scss sass less vue svelte astro xml xsl yaml ' +
    'yml toml ini cfg conf properties gradle cmake make mk dockerfile tf hcl proto graphql gql dart ex exs erl ' +
    'hs elm clj cljs ml mli nim zig v sol asm s ipynb'
  ).split(' '),
);

const TEXT_BY_EXTENSION: Readonly<Record<string, TextKind>> = {
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  csv: 'csv',
  tsv: 'csv',
  json: 'json',
  geojson: 'json',
};

/** The text kind by extension, then by declared type; plain text otherwise. */
function textKind(extension: string, declared: string): TextKind {
  const byExtension = TEXT_BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  if (CODE_EXTENSIONS.has(extension)) return 'code';
  if (declared === 'text/markdown') return 'markdown';
  if (declared === 'text/csv' || declared === 'text/tab-separated-values') return 'csv';
  if (declared === 'application/json' || declared.endsWith('+json')) return 'json';
  if (/^(text\/(javascript|x-|html|css|xml)|application\/(javascript|xml|x-sh|sql))/.test(declared))
    return 'code';
  return 'text';
}

const TEXT_MIME: Record<TextKind, string> = {
  text: 'text/plain',
  code: 'text/plain',
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
};

/** A NUL byte in the first bytes (without a UTF-16 byte-order mark) says the file is not text. */
function looksBinary(head: Uint8Array): boolean {
  if (startsWith(head, [0xff, 0xfe]) || startsWith(head, [0xfe, 0xff])) return false;
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0
    ? name.slice(dot + 1).toLowerCase()
    : name.toLowerCase() === 'dockerfile'
      ? 'dockerfile'
      : '';
}

const SUPPORTED = 'Baton takes text, code, Markdown, CSV, JSON, PDF, and PNG, JPEG, GIF or WebP images';

/**
 * The kind of a file from its name, declared type (`File.type`, often empty) and first bytes
 * (`SNIFF_BYTES` of them). Throws an AttachmentError naming the file for a type Baton does not take.
 */
export function detectKind(name: string, declaredType: string, head: Uint8Array): DetectedKind {
  const extension = extensionOf(name);
  const declared = declaredType.toLowerCase().split(';')[0]?.trim() ?? '';

  if (ascii(head, 0, 5) === '%PDF-') return { kind: 'pdf', mime: 'application/pdf' };
  const image = sendableImage(head);
  if (image) return { kind: 'image', mime: image };
  const other = otherImage(head) ?? (isSvg(extension, declared, head) ? 'SVG' : undefined);
  if (other) {
    throw new AttachmentError(
      'unsupported-image',
      name,
      `${quotedName(name)} is an image in ${other} format, which no provider takes: save it as PNG, JPEG or WebP and attach that.`,
    );
  }
  // The name or type says image or PDF, but the bytes are neither.
  const namedImage = IMAGE_NAMES[extension];
  if (namedImage) {
    throw new AttachmentError(
      'unsupported-image',
      name,
      `${quotedName(name)} is named as an image in ${namedImage} format, which no provider takes: save it as PNG, JPEG or WebP and attach that.`,
    );
  }
  if (SENDABLE_EXTENSIONS.has(extension) || declared.startsWith('image/')) {
    throw new AttachmentError(
      'image-unreadable',
      name,
      `${quotedName(name)} is named as an image, but its bytes are not a PNG, JPEG, GIF or WebP image.`,
    );
  }
  if (extension === 'pdf' || declared === 'application/pdf') {
    throw new AttachmentError(
      'pdf-unreadable',
      name,
      `${quotedName(name)} is named as a PDF, but it does not start as one (no "%PDF-" header): it may be damaged.`,
    );
  }
  const binary = otherBinary(head, extension);
  if (binary || looksBinary(head)) {
    throw new AttachmentError(
      'unsupported-type',
      name,
      `${quotedName(name)} is ${binary ?? 'not a text file (it holds binary data)'}: ${SUPPORTED}.`,
    );
  }
  const kind = textKind(extension, declared);
  return { kind, mime: TEXT_MIME[kind] };
}
