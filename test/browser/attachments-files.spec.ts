/**
 * Attachments read in Chromium as the page reads them: files from a real `<input type="file">`, PDFs
 * through pdf.js in its own Web Worker under the app's CSP, images through createImageBitmap and
 * OffscreenCanvas. The PDFs and images are written for the test (test/fixtures/).
 */

import { sendSize } from '../../src/attachments/image-size.ts';
import { encryptedPdf, manyPagesLines, manyPagesPdf, scannedPdf, textPdf } from '../fixtures/pdf-writer.ts';
import { writePng } from '../fixtures/png-writer.ts';
import type { AttachmentsHarness, ReadSummary } from '../pages/attachments.ts';
import { expect, type Page, test } from './app-test.ts';

type Win = { __attachments: AttachmentsHarness };
type Upload = { name: string; mimeType: string; buffer: Buffer };

async function open(page: Page) {
  await page.goto('/test/pages/attachments.html');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

async function read(page: Page, files: Upload[], password?: string): Promise<ReadSummary> {
  await page.getByTestId('files').setInputFiles(files);
  return page.evaluate(
    (p) => (globalThis as unknown as Win).__attachments.readInput(p === null ? {} : { password: p }),
    password ?? null,
  );
}

const upload = (name: string, mimeType: string, bytes: Uint8Array | string): Upload => ({
  name,
  mimeType,
  buffer: Buffer.from(bytes),
});

test('reads PDFs in the reader\'s own thread: text, 100 pages with progress, "no text layer", a password', async ({
  page,
}) => {
  await open(page);
  const result = await read(page, [
    upload(
      'memo.pdf',
      'application/pdf',
      textPdf([['Dear team,', 'the budget (draft) is attached.'], ['Annex A']]),
    ),
    upload('report.pdf', 'application/pdf', manyPagesPdf(100)),
    upload('scan.pdf', 'application/pdf', scannedPdf()),
    upload('payslip.pdf', 'application/pdf', encryptedPdf('s3cret', ['Net pay: 1234'])),
  ]);

  const [memo, report] = result.attachments;
  expect(memo).toMatchObject({
    name: 'memo.pdf',
    kind: 'pdf',
    pages: ['Dear team,\nthe budget (draft) is attached.', 'Annex A'],
  });
  expect(report?.kind).toBe('pdf');
  if (report?.kind !== 'pdf') return;
  expect(report.pages).toHaveLength(100);
  expect(report.pages[41]).toBe(manyPagesLines(42, 100).join('\n'));
  const reportProgress = result.progress.filter((p) => p.file === 'report.pdf' && p.stage === 'pdf');
  expect(reportProgress.map((p) => ('page' in p ? `${p.page}/${p.pages}` : ''))).toEqual(
    Array.from({ length: 100 }, (_, i) => `${i + 1}/100`),
  );
  expect(result.errors).toEqual([
    expect.objectContaining({
      code: 'pdf-no-text',
      fileName: 'scan.pdf',
      message: expect.stringContaining('"scan.pdf" has no text layer'),
    }),
  ]);
  // The protected one waits for its password (the page asks for it: attachments-pdf.spec.ts).
  expect(result.locked).toEqual([
    expect.objectContaining({
      code: 'pdf-password',
      fileName: 'payslip.pdf',
      message: expect.stringContaining('protected by a password'),
    }),
  ]);

  // With its password the protected one reads.
  const unlocked = await read(
    page,
    [upload('payslip.pdf', 'application/pdf', encryptedPdf('s3cret', ['Net pay: 1234']))],
    's3cret',
  );
  expect(unlocked.attachments[0]).toMatchObject({ kind: 'pdf', pages: ['Net pay: 1234'] });

  // pdf.js ran in the reader's own thread: its script was fetched, and no part of pdf.js ever ran on the
  // page's main thread (where it would have set `pdfjsLib` or `pdfjsWorker`); the page's CSP let the thread
  // start (a worker-src refusal is reported to the page).
  const checks = await page.evaluate(() => {
    const h = (globalThis as unknown as Win).__attachments;
    return { onMainThread: h.pdfJsOnMainThread(), scripts: h.pdfScripts(), csp: h.cspViolations() };
  });
  expect(checks.onMainThread).toBe(false);
  expect(checks.scripts.some((path) => /pdf-text\.worker/.test(path))).toBe(true);
  expect(checks.csp).toEqual([]);
});

test('reads a CSV (windows-1252, said so) and images: a large one downscaled, a small one as it is, other types refused', async ({
  page,
}) => {
  await open(page);
  const large = writePng(2400, 1800);
  const small = writePng(64, 48);
  const result = await read(page, [
    // "café;€5" as Excel on Windows writes it: é = 0xE9, € = 0x80.
    upload(
      'sales.csv',
      'text/csv',
      Uint8Array.from([...Buffer.from('item;price\ncaf'), 0xe9, 0x3b, 0x80, 0x35, 0x0a]),
    ),
    upload('whiteboard.png', 'image/png', large),
    upload('icon.png', 'image/png', small),
    upload('diagram.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'),
    upload(
      'scan.bmp',
      'image/bmp',
      Uint8Array.from([0x42, 0x4d, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]),
    ),
  ]);

  const [csv, whiteboard, icon] = result.attachments;
  expect(csv).toMatchObject({
    kind: 'csv',
    mime: 'text/csv',
    text: 'item;price\ncafé;€5\n',
    encoding: 'windows-1252',
    note: 'not UTF-8: read as windows-1252',
  });

  const expected = sendSize({ width: 2400, height: 1800 });
  expect(whiteboard).toMatchObject({
    kind: 'image',
    mime: 'image/png',
    size: large.length,
    image: { mime: 'image/png', width: 2400, height: 1800, bytes: large.length },
    downscaled: { mime: 'image/png', ...expected },
  });
  expect(expected.width * expected.height).toBeLessThanOrEqual(1_200_000);
  expect(Math.max(whiteboard?.thumbnail?.width ?? 0, whiteboard?.thumbnail?.height ?? 0)).toBe(160);
  expect(whiteboard?.thumbnail?.type).toBe('image/webp');

  // Within every limit: sent as it is (no copy), and its bytes are the file's.
  expect(icon).toMatchObject({ kind: 'image', image: { width: 64, height: 48, bytes: small.length } });
  expect(icon).not.toHaveProperty('downscaled');

  expect(result.errors.map((e) => [e.code, e.fileName])).toEqual([
    ['unsupported-image', 'diagram.svg'],
    ['unsupported-image', 'scan.bmp'],
  ]);
  expect(result.errors[0]?.message).toContain(
    '"diagram.svg" is an image in SVG format, which no provider takes',
  );
});
