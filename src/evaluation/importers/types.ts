import type { TaskSetParse } from '../taskset.ts';

/** One published benchmark's file format, read into Baton tasks. */
export interface TaskSetImporter {
  id: string;
  /** The benchmark's name as people know it. */
  label: string;
  /** Where a user gets the file (the dataset's public page); the app never downloads it. */
  source: { url: string; file: string };
  /** True when a file name says it is this benchmark (e.g. `HumanEval.jsonl`). */
  matchesName(fileName: string): boolean;
  /** True when the first record looks like this benchmark's (JSONL: an object; CSV: the first row). */
  matchesRecord(record: unknown): boolean;
  parse(text: string): TaskSetParse | Promise<TaskSetParse>;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when the record is an object that has every one of `keys`. */
export const hasKeys = (record: unknown, ...keys: string[]): boolean =>
  isObject(record) && keys.every((key) => key in record);
