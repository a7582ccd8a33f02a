import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_LIMITS,
  AttachmentError,
  checkFileSize,
  checkTurn,
  fileLimitFor,
} from '../../../src/attachments/limits.ts';

function thrown(fn: () => void): AttachmentError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AttachmentError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

const MiB = 1024 * 1024;

describe('attachment limits', () => {
  it('are per kind of file, and larger for PDFs and images than for text', () => {
    expect(fileLimitFor('csv')).toBe(ATTACHMENT_LIMITS.textFileBytes);
    expect(fileLimitFor('pdf')).toBe(ATTACHMENT_LIMITS.pdfFileBytes);
    expect(fileLimitFor('image')).toBe(ATTACHMENT_LIMITS.imageFileBytes);
    expect(ATTACHMENT_LIMITS.pdfFileBytes).toBeGreaterThan(ATTACHMENT_LIMITS.textFileBytes);
  });

  it("refuse a file over its kind's limit, naming the file, its size and the limit", () => {
    expect(() => checkFileSize('ok.csv', 'csv', ATTACHMENT_LIMITS.textFileBytes)).not.toThrow();
    const error = thrown(() => checkFileSize('big.csv', 'csv', 3 * MiB));
    expect(error.code).toBe('file-too-large');
    expect(error.fileName).toBe('big.csv');
    expect(error.message).toBe('"big.csv" is 3.0 MB: a CSV file may be at most 2.0 MB.');
    expect(thrown(() => checkFileSize('scan.pdf', 'pdf', 40 * MiB)).message).toBe(
      '"scan.pdf" is 40.0 MB: a PDF may be at most 32.0 MB.',
    );
  });

  it('refuse an empty file', () => {
    const error = thrown(() => checkFileSize('blank.txt', 'text', 0));
    expect(error.code).toBe('empty-file');
    expect(error.message).toContain('"blank.txt" is empty');
  });

  it('keep a long or multi-line file name to one short line in messages', () => {
    const name = `${'a'.repeat(120)}\n.txt`;
    const { message } = thrown(() => checkFileSize(name, 'text', 3 * MiB));
    expect(message).not.toContain('\n');
    expect(message.indexOf('"', 1)).toBeLessThanOrEqual(81);
  });

  it('refuse a turn of too many files, or too many bytes together', () => {
    const file = (size: number) => ({ name: 'f', size });
    expect(() =>
      checkTurn(Array.from({ length: ATTACHMENT_LIMITS.filesPerTurn }, () => file(1))),
    ).not.toThrow();
    const many = thrown(() =>
      checkTurn(Array.from({ length: ATTACHMENT_LIMITS.filesPerTurn + 1 }, () => file(1))),
    );
    expect(many.code).toBe('too-many-files');
    expect(many.message).toBe(`11 files: a message may carry at most ${ATTACHMENT_LIMITS.filesPerTurn}.`);
    const heavy = thrown(() => checkTurn([file(40 * MiB), file(30 * MiB)]));
    expect(heavy.code).toBe('turn-too-large');
    expect(heavy.message).toBe('These files are 70.0 MB together: a message may carry at most 64.0 MB.');
  });
});
