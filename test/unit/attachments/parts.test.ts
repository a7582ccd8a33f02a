import { describe, expect, it } from 'vitest';
import { attachmentParts, attachmentText, base64Of } from '../../../src/attachments/parts.ts';
import type { ImageAttachment, PdfAttachment, TextAttachment } from '../../../src/attachments/types.ts';
import { attachmentBytes } from '../../../src/shared/chat.ts';

const base = { size: 10, blob: new Blob([]) };

describe('attachmentParts', () => {
  it("gives a file's text in a tag naming it, the name escaped so it cannot close or open a tag", () => {
    const csv: TextAttachment = {
      ...base,
      id: 'h1',
      name: 'q3 "final" <v2>\n.csv',
      kind: 'csv',
      mime: 'text/csv',
      text: 'a,b\n1,2',
      encoding: 'utf-8',
    };
    expect(attachmentParts(csv)).toEqual([
      {
        type: 'text',
        text: '<file name="q3 &quot;final&quot; &lt;v2&gt; .csv" type="csv">\na,b\n1,2\n</file>\n',
        attachment: 'h1',
      },
    ]);
  });

  it("gives a PDF's pages, each headed by its number, and says which have no text layer", () => {
    const pdf: PdfAttachment = {
      ...base,
      id: 'h2',
      name: 'memo.pdf',
      kind: 'pdf',
      mime: 'application/pdf',
      pages: ['Dear all,', '', 'Annex A'],
      pagesWithoutText: [2],
    };
    expect(attachmentText(pdf)).toBe(
      '<file name="memo.pdf" type="pdf" pages="3">\n[page 1]\nDear all,\n\n[page 2: no text layer]\n\n[page 3]\nAnnex A\n</file>\n',
    );
  });

  it('gives an image as sent (the downscaled copy) after a tag naming it; only the image counts as attachment bytes', () => {
    const bytes = Uint8Array.from([1, 2, 3, 4, 5]);
    const image: ImageAttachment = {
      ...base,
      id: 'h3',
      name: 'photo.jpg',
      kind: 'image',
      mime: 'image/jpeg',
      image: { mime: 'image/jpeg', width: 4000, height: 3000, bytes: new Uint8Array(50) },
      downscaled: { mime: 'image/webp', width: 1264, height: 948, bytes },
      thumbnail: new Blob([]),
    };
    const parts = attachmentParts(image);
    expect(parts).toEqual([
      { type: 'text', text: '<file name="photo.jpg" type="image" width="1264" height="948"/>\n' },
      {
        type: 'image',
        mediaType: 'image/webp',
        data: 'AQIDBAU=',
        attachment: 'h3',
        width: 1264,
        height: 948,
      },
    ]);
    expect(attachmentBytes([{ role: 'user', content: parts }])).toBe('AQIDBAU='.length);
  });
});

describe('base64Of', () => {
  it('encodes as Buffer does, across the chunks it encodes a large array in', () => {
    const bytes = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7919) & 0xff);
    expect(base64Of(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(base64Of(new Uint8Array())).toBe('');
  });
});
