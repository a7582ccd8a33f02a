import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importTaskSetFile, TaskSetFileError } from '../../../../src/evaluation/importers/index.ts';
import { fixture } from './fixture.ts';

const bytes = (data: Uint8Array | string) =>
  new Blob([typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data)]);

describe('a picked task-set file', () => {
  it('reads a gzip-compressed file, as HumanEval is published (HumanEval.jsonl.gz)', async () => {
    const imported = await importTaskSetFile(
      bytes(gzipSync(fixture('humaneval.jsonl'))),
      'HumanEval.jsonl.gz',
    );
    expect(imported.errors).toEqual([]);
    expect(imported.format.id).toBe('humaneval');
    expect(imported.gzip).toBe(true);
    expect(imported.tasks.map((t) => t.id)).toEqual(['Baton/0', 'Baton/1']);
  });

  it('knows gzip by its first bytes, not its name, for every format (a CSV here)', async () => {
    const imported = await importTaskSetFile(bytes(gzipSync(fixture('gpqa.csv'))), 'download');
    expect(imported.errors).toEqual([]);
    expect(imported.format.id).toBe('gpqa');
    expect(imported.gzip).toBe(true);
    // The same file uncompressed is read as it is.
    const plain = await importTaskSetFile(bytes(fixture('gpqa.csv')), 'gpqa.csv');
    expect(plain.tasks).toEqual(imported.tasks);
    expect(plain.gzip).toBeUndefined();
  });

  it('says what a file is when it cannot be read, instead of listing garbled lines', async () => {
    const whole = gzipSync(fixture('humaneval.jsonl'));
    const cut = importTaskSetFile(bytes(whole.subarray(0, whole.length / 2)), 'HumanEval.jsonl.gz');
    await expect(cut).rejects.toThrow(TaskSetFileError);
    await expect(cut).rejects.toThrow(
      /HumanEval\.jsonl\.gz is gzip-compressed but could not be decompressed/,
    );
    await expect(importTaskSetFile(bytes('PK\u0003\u0004rest'), 'tasks.zip')).rejects.toThrow(
      'tasks.zip is a ZIP archive: unzip it and pick the file inside.',
    );
    await expect(importTaskSetFile(bytes('PAR1....'), 'test.parquet')).rejects.toThrow(/Parquet/);
    await expect(importTaskSetFile(bytes(new Uint8Array([0xff, 0xfe, 0x00, 0xd8])), 'x.bin')).rejects.toThrow(
      'x.bin is not text (UTF-8)',
    );
  });
});
