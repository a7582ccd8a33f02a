import { describe, expect, it } from 'vitest';
import { createAttachments } from '../../../src/app/attachments-state.ts';
import { pdfReaderOver } from '../../../src/attachments/pdf-reader.ts';

// PDFs are not read here (the reader's thread has its own tests): the reader is never called.
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
