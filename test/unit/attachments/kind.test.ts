import { describe, expect, it } from 'vitest';
import { detectKind, extensionOf } from '../../../src/attachments/kind.ts';
import { AttachmentError } from '../../../src/attachments/limits.ts';

const bytes = (...values: (number | string)[]) =>
  Uint8Array.from(values.flatMap((v) => (typeof v === 'string' ? [...Buffer.from(v, 'latin1')] : [v])));
const text = (s: string) => new TextEncoder().encode(s);

const PNG = bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 'IHDR');
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16, 'JFIF');
const GIF = bytes('GIF89a', 1, 0, 1, 0);
const WEBP = bytes('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 ');
// A BMP: "BM", file size, reserved, pixel offset, then a 40-byte DIB header.
const BMP = bytes('BM', 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0);
const TIFF = bytes('II', 0x2a, 0, 8, 0, 0, 0);
const HEIC = bytes(0, 0, 0, 0x18, 'ftypheic', 0, 0, 0, 0);
const AVIF = bytes(0, 0, 0, 0x1c, 'ftypavif', 0, 0, 0, 0);
const ZIP = bytes('PK', 3, 4, 20, 0);

function refusal(name: string, type: string, head: Uint8Array): AttachmentError {
  try {
    detectKind(name, type, head);
  } catch (error) {
    if (error instanceof AttachmentError) return error;
    throw error;
  }
  throw new Error(`${name} was not refused`);
}

describe('detectKind', () => {
  it('reads the four sendable image types and PDF from their bytes, whatever the name says', () => {
    expect(detectKind('photo.txt', 'text/plain', PNG)).toEqual({ kind: 'image', mime: 'image/png' });
    expect(detectKind('x', '', JPEG)).toEqual({ kind: 'image', mime: 'image/jpeg' });
    expect(detectKind('anim.png', 'image/png', GIF)).toEqual({ kind: 'image', mime: 'image/gif' });
    expect(detectKind('a.webp', '', WEBP)).toEqual({ kind: 'image', mime: 'image/webp' });
    expect(detectKind('report', '', text('%PDF-1.7\n'))).toEqual({ kind: 'pdf', mime: 'application/pdf' });
  });

  it('refuses by name the image types no provider takes, found by their bytes', () => {
    for (const [head, type] of [
      [BMP, 'BMP'],
      [TIFF, 'TIFF'],
      [HEIC, 'HEIC'],
      [AVIF, 'AVIF'],
    ] as const) {
      const error = refusal('IMG_0001.jpg', 'image/jpeg', head);
      expect(error.code).toBe('unsupported-image');
      expect(error.fileName).toBe('IMG_0001.jpg');
      expect(error.message).toContain('"IMG_0001.jpg"');
      expect(error.message).toContain(`an image in ${type} format`);
    }
  });

  it('never takes an SVG as an image: by name, by declared type, or by its <svg> root', () => {
    const svg = text(
      '<?xml version="1.0"?>\n<!-- drawn -->\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    expect(refusal('logo.svg', 'image/svg+xml', svg).message).toContain('SVG');
    expect(refusal('logo.xml', 'application/xml', svg).code).toBe('unsupported-image');
    expect(refusal('drawing', 'image/svg+xml', text('<svg></svg>')).code).toBe('unsupported-image');
    expect(refusal('icon.svg', '', text('not even xml')).code).toBe('unsupported-image');
  });

  it('says so when a file named as an image or a PDF is not one', () => {
    expect(refusal('shot.png', 'image/png', text('hello')).code).toBe('image-unreadable');
    expect(refusal('scan.heic', '', text('hello')).message).toContain('HEIC');
    const pdf = refusal('contract.pdf', 'application/pdf', text('<html>login</html>'));
    expect(pdf.code).toBe('pdf-unreadable');
    expect(pdf.message).toContain('"contract.pdf"');
  });

  it('refuses archives, office documents and other binary files, saying what Baton takes', () => {
    const docx = refusal('notes.docx', '', ZIP);
    expect(docx.code).toBe('unsupported-type');
    expect(docx.message).toContain('office document (.docx)');
    expect(docx.message).toContain('PNG, JPEG, GIF or WebP');
    expect(refusal('archive.zip', '', ZIP).message).toContain('zip archive');
    expect(refusal('data.bin', '', bytes(1, 2, 0, 4)).message).toContain('binary data');
  });

  it('takes UTF-16 text, whose NUL bytes follow a byte-order mark', () => {
    const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from('a,b\n', 'utf16le')]);
    expect(detectKind('export.csv', '', utf16)).toEqual({ kind: 'csv', mime: 'text/csv' });
  });

  it('names text kinds by extension first, then by declared type, else plain text', () => {
    const t = text('x');
    expect(detectKind('README.md', '', t).kind).toBe('markdown');
    expect(detectKind('sales.csv', 'application/vnd.ms-excel', t).kind).toBe('csv');
    expect(detectKind('table.tsv', '', t).kind).toBe('csv');
    expect(detectKind('package.json', '', t).kind).toBe('json');
    expect(detectKind('main.rs', '', t).kind).toBe('code');
    expect(detectKind('Dockerfile', '', t).kind).toBe('code');
    expect(detectKind('notes', 'text/markdown', t).kind).toBe('markdown');
    expect(detectKind('dump', 'application/json', t)).toEqual({ kind: 'json', mime: 'application/json' });
    expect(detectKind('server.log', '', t)).toEqual({ kind: 'text', mime: 'text/plain' });
    // A text that happens to start with "BM" is not a bitmap.
    expect(detectKind('memo.txt', '', text('BMW fleet report, 2024')).kind).toBe('text');
  });

  it('reads extensions case-insensitively, and a leading dot is no extension', () => {
    expect(extensionOf('Photo.JPG')).toBe('jpg');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
  });
});
