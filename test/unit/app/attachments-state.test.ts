import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it, vi } from 'vitest';
import { createAttachments } from '../../../src/app/attachments-state.ts';
import { pdfReaderOver } from '../../../src/attachments/pdf-reader.ts';
import { extractPdfText } from '../../../src/shared/pdf-text.ts';
import { encryptedPdf, textPdf } from '../../fixtures/pdf-writer.ts';

// The reader's thread has its own tests: here PDFs are read by pdf.js in-process, or not at all.
const noPdf = () => pdfReaderOver(() => Promise.reject(new Error('no PDF expected')));

describe("the question's attachments", () => {
  it('reads added files into chips, says which were refused and why, and hands them to the question once', async () => {
    const state = createAttachments({ pdfReader: noPdf });
    await state.add([
      new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' }),
      new File([''], 'empty.txt', { type: 'text/plain' }),
    ]);
    expect(state.files.value.map((f) => [f.name, f.kind])).toEqual([['data.csv', 'csv']]);
    expect(state.errors.value).toEqual(['"empty.txt" is empty: there is nothing to send.']);
    await state.add([new File(['a,b\n1,2\n'], 'again.csv', { type: 'text/csv' })]);
    expect(state.errors.value).toEqual(['"again.csv" is already attached (the same content).']);
    expect(state.busy.value).toBe(false);
    const taken = state.take();
    expect(taken.map((f) => f.name)).toEqual(['data.csv']);
    expect(state.files.value).toEqual([]);
  });

  it('removes a chip', async () => {
    const state = createAttachments({ pdfReader: noPdf });
    await state.add([new File(['x'], 'a.md'), new File(['y'], 'b.json')]);
    state.remove(state.files.value[0]!.id);
    expect(state.files.value.map((f) => f.name)).toEqual(['b.json']);
  });
});

describe('a PDF that cannot simply be read', () => {
  const realPdf = () => pdfReaderOver((name, data, options) => extractPdfText(pdfjs, name, data, options));
  const pdfFile = (name: string, bytes: Uint8Array) =>
    new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/pdf' });

  it('waits for its password: a wrong one is said, the right one attaches it, and Remove drops it', async () => {
    const state = createAttachments({ pdfReader: realPdf });
    await state.add([
      pdfFile('payslip.pdf', encryptedPdf('s3cret', ['Net pay: 1234'])),
      new File(['x'], 'a.md'),
    ]);
    expect(state.files.value.map((f) => f.name)).toEqual(['a.md']);
    expect(state.errors.value).toEqual([]);
    const [locked] = state.locked.value;
    expect(locked?.file.name).toBe('payslip.pdf');
    expect(locked?.message).toContain('"payslip.pdf" is protected by a password');
    await state.unlock(locked!.id, 'guess');
    expect(state.locked.value.map((l) => l.message)).toEqual([
      'The password for "payslip.pdf" is not right.',
    ]);
    await state.unlock(locked!.id, 's3cret');
    expect(state.locked.value).toEqual([]);
    const pdf = state.files.value.find((f) => f.name === 'payslip.pdf');
    expect(pdf?.kind === 'pdf' && pdf.pages).toEqual(['Net pay: 1234']);

    await state.add([pdfFile('other.pdf', encryptedPdf('x'))]);
    state.forget(state.locked.value[0]!.id);
    expect(state.locked.value).toEqual([]);
  });

  it('cancels the file being read, and reads the ones after it', async () => {
    // A reader that reads until it is cancelled, as a long PDF does.
    const endless = () =>
      pdfReaderOver(
        (name, _data, { signal }) =>
          new Promise((resolve) =>
            signal?.addEventListener('abort', () =>
              resolve({ ok: false, code: 'cancelled', message: `Reading "${name}" was cancelled.` }),
            ),
          ),
      );
    const state = createAttachments({ pdfReader: endless });
    const done = state.add([pdfFile('long.pdf', textPdf([['page']])), new File(['x'], 'notes.txt')]);
    await vi.waitFor(() => expect(state.progress.value?.file).toBe('long.pdf'));
    expect(state.busy.value).toBe(true);
    state.cancel();
    await done;
    expect(state.errors.value).toEqual(['Reading "long.pdf" was cancelled.']);
    expect(state.files.value.map((f) => f.name)).toEqual(['notes.txt']);
    expect(state.busy.value).toBe(false);
  });
});
