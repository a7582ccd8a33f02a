import type { AttachmentSummary } from '../../src/shared/conductor-api.ts';
import { formatBytes } from '../../src/shared/format-bytes.ts';
import { fenceData } from './data-fence.ts';
import { FILE_SHOTS } from './few-shots.ts';

/**
 * What the conductor reads about the question's attached files: one line each (number, name, kind, size,
 * the start of its text), and who may take the images. It goes after the question, so the kept prefix
 * (system prompt, examples) is the same with files or without.
 */

/** Longest extract shown, whatever the page sent: the extract is a hint, never the file. */
const EXTRACT_CHARS = 400;

function fileLine(file: AttachmentSummary, index: number): string {
  const facts: string[] = [file.kind];
  if (file.pages !== undefined) facts.push(`${file.pages} page${file.pages === 1 ? '' : 's'}`);
  if (file.width !== undefined && file.height !== undefined) facts.push(`${file.width}x${file.height}`);
  facts.push(formatBytes(file.size));
  if (file.long) facts.push('long');
  // Fenced as data: the name and extract are the file's own text, which may be written to steer the plan.
  // JSON-quoted inside the fence, so each stays on one line.
  const extract = file.extract?.trim()
    ? ` Starts: ${fenceData(JSON.stringify(file.extract.trim().slice(0, EXTRACT_CHARS)))}`
    : '';
  return `${index}: ${fenceData(JSON.stringify(file.name))} (${facts.join(', ')}).${extract}`;
}

/**
 * A file whole or only the part a step needs, with the two examples: said only when the question carries
 * files (it is after the question, so the kept prefix stays the same).
 */
const PASSAGES_RULE = [
  'A number sends the whole file; {"file": n, "find": "words"} only the passages that match (best for a long file).',
  ...FILE_SHOTS.map(
    (shot) => `E.g. ${JSON.stringify(shot.question)}: "files": ${JSON.stringify(shot.files)}`,
  ),
].join('\n');

/** The files block of the last user turn, or '' when there are none. */
export function filesText(
  files: readonly AttachmentSummary[] | undefined,
  visionWorkers: readonly string[],
  router: boolean,
): string {
  if (!files || files.length === 0) return '';
  const lines = [
    router
      ? 'Attached files (the step gets them all: "files": "all"):'
      : 'Attached files. Each step gets only the files it names: "files": [numbers], or [] for none.',
    ...(router ? [] : [PASSAGES_RULE]),
    ...files.map(fileLine),
  ];
  if (files.some((file) => file.kind === 'image')) {
    lines.push(
      visionWorkers.length > 0
        ? `Only these workers take images: ${visionWorkers.join(', ')}.`
        : 'No worker takes images: give an image to no step.',
    );
  }
  return lines.join('\n');
}
