import type { TaskSetParse } from '../taskset.ts';
import { batonTaskSet } from './baton.ts';
import { csvRows } from './csv.ts';
import { taskSetFileText } from './file-text.ts';
import { gpqa } from './gpqa.ts';
import { gsm8k } from './gsm8k.ts';
import { humanEval } from './humaneval.ts';
import { liveCodeBench } from './livecodebench.ts';
import { math500 } from './math500.ts';
import { mbpp } from './mbpp.ts';
import { mmlu } from './mmlu.ts';
import type { TaskSetImporter } from './types.ts';

export { TaskSetFileError } from './file-text.ts';
export type { TaskSetImporter } from './types.ts';

/** The published formats, in the order a record is tried against them (the most specific first). */
export const BENCHMARK_IMPORTERS: readonly TaskSetImporter[] = [
  humanEval,
  mbpp,
  liveCodeBench,
  gpqa,
  mmlu,
  math500,
  gsm8k,
];

const ALL: readonly TaskSetImporter[] = [batonTaskSet, ...BENCHMARK_IMPORTERS];

/** The first record of a text: a JSON object of its first line, else its first CSV row. */
async function firstRecord(text: string): Promise<unknown> {
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .find((line) => line.trim() !== '');
  if (first === undefined) return undefined;
  try {
    return JSON.parse(first);
  } catch {
    if (!first.includes(',')) return undefined;
    const rows = await csvRows(text.slice(0, 64 * 1024));
    const row = rows[0];
    return row && 'row' in row ? row.row : undefined;
  }
}

/** Which format a file is in: by its first record, else by its name; Baton's own format when neither says. */
export async function detectFormat(text: string, fileName = ''): Promise<TaskSetImporter> {
  const record = await firstRecord(text);
  return (
    ALL.find((importer) => importer.matchesRecord(record)) ??
    BENCHMARK_IMPORTERS.find((importer) => importer.matchesName(fileName)) ??
    batonTaskSet
  );
}

export interface TaskSetImport extends TaskSetParse {
  format: TaskSetImporter;
  /** Set for a file that came gzip-compressed. */
  gzip?: true;
}

/** Reads a task set in any known format; bad records are reported by line and the good ones kept. */
export async function importTaskSet(text: string, fileName = ''): Promise<TaskSetImport> {
  const format = await detectFormat(text, fileName);
  return { format, ...(await format.parse(text)) };
}

/**
 * Reads a picked file in any known format, gzip-compressed or not (file-text.ts); throws
 * TaskSetFileError, with what to do, for a file that is not text at all.
 */
export async function importTaskSetFile(file: Blob, fileName: string): Promise<TaskSetImport> {
  const { text, name, gzip } = await taskSetFileText(file, fileName);
  return { ...(await importTaskSet(text, name)), ...(gzip ? { gzip } : {}) };
}
