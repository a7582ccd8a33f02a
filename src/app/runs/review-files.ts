/**
 * What a step under review will send of each attached file, chosen as the executor will choose it
 * (src/executor/step-files.ts, over the page's same passage library): the whole file, or which passages,
 * each with its place, its first words and its size. The plan review shows it, and the user's ticks go
 * back into the step's `files` as the passages to send.
 */
import type { Attachment } from '../../attachments/types.ts';
import { chooseStepFiles, type StepFilesOptions } from '../../executor/step-files.ts';
import { fileOf } from '../../shared/plan/files.ts';
import type { Step } from '../../shared/plan/index.ts';
import type { FileEntry } from '../../shared/plan/schema.ts';

export interface PassagePreview {
  n: number;
  place: string;
  /** The passage's first words (the file's own text: shown inert). */
  start: string;
  chars: number;
}

export interface FilePreview {
  /** The file's index in the question's files. */
  file: number;
  /** Sent as passages (absent: whole). */
  passages?: PassagePreview[];
  total?: number;
  weak?: true;
  /** Why it cannot go as passages (a scan without text), when it cannot. */
  problem?: string;
}

/**
 * The passages of `file` that go: the user's own ticks as soon as they are made (the step's entry lists
 * them), else what the preview found. Read from the preview alone, a passage just unticked showed ticked
 * again until the preview of the new choice came back (seconds on a busy machine), and a second tick made
 * in between undid the first.
 */
export function passagesSent(
  entries: readonly FileEntry[],
  previews: readonly FilePreview[],
  file: number,
): number[] {
  const entry = entries.find((e) => fileOf(e) === file);
  if (typeof entry === 'object' && entry.passages) return entry.passages;
  return previews.find((p) => p.file === file)?.passages?.map((p) => p.n) ?? [];
}

/** The entries with `file`'s replaced by `entry` (none: the file is left out). */
export function withEntry(entries: readonly FileEntry[], file: number, entry?: FileEntry): FileEntry[] {
  const others = entries.filter((e) => fileOf(e) !== file);
  return (entry === undefined ? others : [...others, entry]).sort((a, b) => fileOf(a) - fileOf(b));
}

/**
 * The entries once passage `n` of `file` is ticked (`on`) or unticked: the passages sent so far
 * (`passagesSent`) with it or without it, the entry's query kept; none left, the file is left out.
 */
export function tickPassage(
  entries: readonly FileEntry[],
  previews: readonly FilePreview[],
  file: number,
  n: number,
  on: boolean,
): FileEntry[] {
  const sent = passagesSent(entries, previews, file);
  const entry = entries.find((e) => fileOf(e) === file);
  const chosen = on ? [...new Set([...sent, n])].sort((a, b) => a - b) : sent.filter((m) => m !== n);
  const find = typeof entry === 'object' && entry.find !== undefined ? { find: entry.find } : {};
  return withEntry(entries, file, chosen.length > 0 ? { file, ...find, passages: chosen } : undefined);
}

const START_CHARS = 80;

function startOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > START_CHARS ? `${line.slice(0, START_CHARS - 1)}…` : line;
}

export async function previewStepFiles(
  step: Pick<Step, 'files' | 'task'>,
  index: number,
  attachments: readonly Attachment[],
  options: StepFilesOptions,
): Promise<FilePreview[]> {
  try {
    const files = await chooseStepFiles(step, index, attachments, options);
    return files.map(({ attachment, passages }) => {
      const file = attachments.indexOf(attachment);
      if (!passages) return { file };
      return {
        file,
        passages: passages.passages.map((p) => ({
          n: p.n,
          place: p.place,
          start: startOf(p.text),
          chars: p.text.length,
        })),
        total: passages.total,
        ...(passages.weak ? { weak: true as const } : {}),
      };
    });
  } catch (error) {
    return [{ file: -1, problem: error instanceof Error ? error.message : String(error) }];
  }
}
