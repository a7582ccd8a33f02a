import type { FileEntry, Files } from './schema.ts';

/**
 * What the plan language knows of a question's attached files: how many, which are images (by index),
 * their names (for messages), and which workers take images. Validation, the decoding schema and the
 * plan checks read it, so a plan the schema lets through is never rejected for its files.
 */
export interface PlanFiles {
  /** How many files the question carries: a step's `files` indices are below it. */
  count: number;
  /** Indices of the files that are images. */
  images: readonly number[];
  /** The files' names, by index (untrusted text: quoted in messages, never markup). */
  names?: readonly string[];
  /** Ids of the workers that take image input. */
  visionWorkers: readonly string[];
}

/** The file an entry names. */
export function fileOf(entry: FileEntry): number {
  return typeof entry === 'number' ? entry : entry.file;
}

/** The file indices a step's `files` names, in order, each once (none for `undefined`). */
export function resolveFiles(files: Files | undefined, count: number): number[] {
  if (files === undefined) return [];
  if (files === 'all') return Array.from({ length: count }, (_, i) => i);
  return [...new Set(files.map(fileOf))].filter((i) => i < count).sort((a, b) => a - b);
}

/**
 * How a step takes one file: `whole` (the plan or the user named it by its number), `passages` (an
 * entry with a query, or the user's ticked passages), or `default` (`"all"`: the plan did not choose,
 * so the file goes whole up to the user's size limit and as passages past it).
 */
export type FileUse =
  | { file: number; as: 'whole' | 'default' }
  | { file: number; as: 'passages'; find?: string; passages?: number[] };

/**
 * Each file a step takes, in the files' order, once: a file named both whole and as passages goes whole
 * (the larger choice is the one someone made on purpose), two passage entries of one file are one.
 */
export function fileUses(files: Files | readonly FileEntry[] | undefined, count: number): FileUse[] {
  if (files === undefined) return [];
  if (files === 'all') return Array.from({ length: count }, (_, file) => ({ file, as: 'default' }));
  const uses = new Map<number, FileUse>();
  for (const entry of files) {
    const file = fileOf(entry);
    if (file >= count) continue;
    const had = uses.get(file);
    if (typeof entry === 'number' || had?.as === 'whole') {
      uses.set(file, { file, as: 'whole' });
      continue;
    }
    const find = [had?.as === 'passages' ? had.find : undefined, entry.find]
      .filter((q): q is string => Boolean(q?.trim()))
      .join(' ');
    const passages =
      had?.as === 'passages' && had.passages && entry.passages
        ? [...new Set([...had.passages, ...entry.passages])].sort((a, b) => a - b)
        : (entry.passages ?? (had?.as === 'passages' ? had.passages : undefined));
    uses.set(file, {
      file,
      as: 'passages',
      ...(find ? { find } : {}),
      ...(passages ? { passages } : {}),
    });
  }
  return [...uses.values()].sort((a, b) => a.file - b.file);
}

/** The images among a step's files that its worker cannot take (none when the worker takes images). */
export function imagesRefused(worker: string, files: Files | undefined, planFiles: PlanFiles): number[] {
  if (planFiles.visionWorkers.includes(worker)) return [];
  return resolveFiles(files, planFiles.count).filter((i) => planFiles.images.includes(i));
}
