import type { Files } from './schema.ts';

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

/** The file indices a step's `files` names, in order, each once (none for `undefined`). */
export function resolveFiles(files: Files | undefined, count: number): number[] {
  if (files === undefined) return [];
  if (files === 'all') return Array.from({ length: count }, (_, i) => i);
  return [...new Set(files)].filter((i) => i < count).sort((a, b) => a - b);
}

/** The images among a step's files that its worker cannot take (none when the worker takes images). */
export function imagesRefused(worker: string, files: Files | undefined, planFiles: PlanFiles): number[] {
  if (planFiles.visionWorkers.includes(worker)) return [];
  return resolveFiles(files, planFiles.count).filter((i) => planFiles.images.includes(i));
}
