/**
 * The attached files of one step: only those its `files` names, in the step's own message (a file given
 * to step 1 is in no other step's request), text as text and images as image parts, or only the passages
 * of a file the step asks for (chosen on the device, src/attachments/passage-index.ts), and nothing else of
 * it; and the prompt tokens they add, by each model's image rule.
 */

import { attachmentParts, type PassagesToSend, passagesText } from '../attachments/parts.ts';
import { firstLabels } from '../attachments/passage-cites.ts';
import type { PassageLibrary } from '../attachments/passage-store.ts';
import { PASSAGE_BUDGET_CHARS, PassagesUnavailable, passagesUnavailable } from '../attachments/passages.ts';
import { imageTokenRule, imageTokens } from '../attachments/tokens.ts';
import type { Attachment, PdfAttachment, TextAttachment } from '../attachments/types.ts';
import { isLong, textOf } from '../attachments/whole-or-passages.ts';
import type { SentFile } from '../records/run-types.ts';
import {
  type ChatMessage,
  type ContentPart,
  contentText,
  type PartsMessage,
  textMessage,
} from '../shared/chat.ts';
import { fileUses, type PlanFiles, resolveFiles } from '../shared/plan/files.ts';
import type { Step } from '../shared/plan/index.ts';
import { estimatePromptTokens } from '../shared/token-estimate.ts';
import { labelOf, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/** One file as a step sends it: whole, or only `passages` of it. */
export interface StepFile {
  attachment: Attachment;
  passages?: PassagesToSend;
}

/** How a step's files are chosen: the page's passage library, the user's size for whole files. */
export interface StepFilesOptions {
  /** Where files' indexes are kept (default: one in memory, for tests and the bench). */
  library?: PassageLibrary;
  /** Past this many tokens (about), a file the plan did not choose for goes as passages. */
  wholeFileTokens?: number | null;
  /** The question: searched too when the step's task alone matches weakly and no `find` was given. */
  question?: string;
}

/** A file is read as passages only with a text layer; a use that asks for none is whole. */
type Use = { attachment: Attachment; find?: string; chosen?: number[]; whole: boolean };

function usesOf(
  step: Pick<Step, 'files'>,
  attachments: readonly Attachment[],
  wholeFileTokens?: number | null,
): Use[] {
  return fileUses(step.files, attachments.length).map((use) => {
    const attachment = attachments[use.file] as Attachment;
    if (use.as !== 'passages') {
      return { attachment, whole: use.as === 'whole' || !isLong(attachment, wholeFileTokens) };
    }
    return {
      attachment,
      whole: attachment.kind === 'image',
      ...(use.find !== undefined ? { find: use.find } : {}),
      ...(use.passages !== undefined ? { chosen: use.passages } : {}),
    };
  });
}

let memoryLibrary: PassageLibrary | undefined;

/** The library of a run given none (tests, the bench): in memory, one for the module's life. */
async function defaultLibrary(): Promise<PassageLibrary> {
  const { createPassageLibrary } = await import('../attachments/passage-store.ts');
  memoryLibrary ??= createPassageLibrary(undefined);
  return memoryLibrary;
}

/**
 * The files step `index` sends, each whole or as the passages chosen for it: the user's ticked ones when
 * review set them, else the best matches for its `find` (or its task). Throws a StepFilesError naming the
 * file when passages cannot be had (a PDF without a text layer).
 */
export async function chooseStepFiles(
  step: Pick<Step, 'files' | 'task'>,
  index: number,
  attachments: readonly Attachment[],
  options: StepFilesOptions = {},
): Promise<StepFile[]> {
  const uses = usesOf(step, attachments, options.wholeFileTokens);
  if (uses.every((use) => use.whole)) return uses.map((use) => ({ attachment: use.attachment }));
  // Loaded only when a step asks for passages: MiniSearch stays out of the first screen's JavaScript.
  const [library, { choosePassages }] = await Promise.all([
    options.library ?? defaultLibrary(),
    import('../attachments/passage-index.ts'),
  ]);
  return Promise.all(
    uses.map(async (use): Promise<StepFile> => {
      if (use.whole) return { attachment: use.attachment };
      try {
        const { passages, search } = await library.indexFor(use.attachment);
        if (use.chosen) {
          const picked = use.chosen.flatMap((n) => (passages[n] ? [passages[n]] : []));
          return { attachment: use.attachment, passages: { passages: picked, total: passages.length } };
        }
        let choice = choosePassages(search, passages, use.find ?? step.task);
        if (choice.weak && use.find === undefined && options.question?.trim()) {
          const wider = choosePassages(search, passages, `${step.task} ${options.question}`);
          // A weak match to the question beats the file's first pages taken for a task that matched nothing.
          if (!wider.weak || (choice.unmatched && !wider.unmatched)) choice = wider;
        }
        return {
          attachment: use.attachment,
          passages: {
            passages: choice.passages,
            total: passages.length,
            ...(choice.weak ? { weak: true } : {}),
          },
        };
      } catch (error) {
        if (error instanceof PassagesUnavailable)
          throw new StepFilesError(index, `Step ${index}: ${error.message}`);
        throw error;
      }
    }),
  );
}

/**
 * The files a step will send, as the estimate counts them before any index is read: a file as passages
 * counts as the passage budget (or the whole text, when shorter).
 */
export function estimatedStepFiles(
  step: Pick<Step, 'files'>,
  attachments: readonly Attachment[],
  wholeFileTokens?: number | null,
): StepFile[] {
  return usesOf(step, attachments, wholeFileTokens).map((use) => {
    if (use.whole || passagesUnavailable(use.attachment)) return { attachment: use.attachment };
    const text = textOf(use.attachment).slice(0, PASSAGE_BUDGET_CHARS);
    return {
      attachment: use.attachment,
      passages: { passages: [{ n: 0, place: 'passages', text }], total: 1 },
    };
  });
}

/** The parts a step sends for one file: all of it, or its passages alone, labelled from `first`. */
function partsOf(file: StepFile, first: number): ContentPart[] {
  const { attachment, passages } = file;
  if (!passages || attachment.kind === 'image') return attachmentParts(attachment);
  const text = passagesText(attachment as TextAttachment | PdfAttachment, passages, first);
  return [{ type: 'text', text, attachment: attachment.id }];
}

/** Each file's parts in a step's message, its passages labelled on from the file before. */
function filesParts(files: readonly StepFile[]): ContentPart[][] {
  const firsts = firstLabels(files.map((file) => file.passages?.passages.length ?? 0));
  return files.map((file, i) => partsOf(file, firsts[i] as number));
}

const encoder = new TextEncoder();

/** What a step sent of each file, for its card and its record: whole or which passages, and the bytes. */
export function sentFilesOf(files: readonly StepFile[]): SentFile[] {
  const parts = filesParts(files);
  return files.map((file, i) => {
    const bytes = (parts[i] as ContentPart[]).reduce(
      (n, part) => n + (part.type === 'image' ? part.data.length : encoder.encode(part.text).byteLength),
      0,
    );
    const sent: SentFile = { id: file.attachment.id, name: file.attachment.name, bytes };
    if (!file.passages) return sent;
    return {
      ...sent,
      passages: file.passages.passages.map((p) => ({ n: p.n, place: p.place, chars: p.text.length })),
      total: file.passages.total,
      ...(file.passages.weak ? { weak: true as const } : {}),
    };
  });
}

/** The question's files as the plan language checks them: which are images, and who takes images. */
export function planFilesOf(attachments: readonly Attachment[], pool: readonly WorkerSpec[]): PlanFiles {
  return {
    count: attachments.length,
    images: attachments.flatMap((a, i) => (a.kind === 'image' ? [i] : [])),
    names: attachments.map((a) => a.name),
    visionWorkers: pool.filter((w) => w.vision === true).map((w) => w.id),
  };
}

/** The attachments a step gets, in the order of the question's files. */
export function filesOfStep(step: Pick<Step, 'files'>, attachments: readonly Attachment[]): Attachment[] {
  return resolveFiles(step.files, attachments.length).map((i) => attachments[i] as Attachment);
}

/**
 * The step's messages with its files: the last user turn (its own task) becomes the files' parts (each
 * file whole, or its passages alone), then the task, so the files sit beside the instruction that uses
 * them. Without files, the messages as they are.
 */
export function withStepFiles(
  messages: ChatMessage[],
  files: readonly (StepFile | Attachment)[],
): PartsMessage[] {
  if (files.length === 0) return messages;
  const last = messages.at(-1);
  if (last?.role !== 'user') throw new Error('A step’s messages must end with its task.');
  const parts: ContentPart[] = [
    ...filesParts(files.map((file) => ('attachment' in file ? file : { attachment: file }))).flat(),
    { type: 'text', text: contentText(last.content) },
  ];
  return [...messages.slice(0, -1), { role: 'user', content: parts }];
}

/**
 * Prompt tokens of a request to `model`: its text (attached files' text included) by the project's
 * estimator, and each image by the model's documented image rule (else a stated estimate).
 */
export function promptTokensOf(messages: readonly PartsMessage[], model: string): number {
  let images = 0;
  const rule = imageTokenRule(model);
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'image') continue;
      images += imageTokens({ width: part.width ?? 0, height: part.height ?? 0 }, rule).tokens;
    }
  }
  return estimatePromptTokens(messages.map(textMessage)) + images;
}

/** Thrown before anything is sent when a step's worker cannot take the files it is given. */
export class StepFilesError extends Error {
  override name = 'StepFilesError';
  constructor(
    readonly stepIndex: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Throws when step `index` would send an image to a worker that takes none: named by the step's number and
 * the worker's label, so the user knows which step to give to another worker.
 */
export function checkStepFiles(
  step: Step,
  index: number,
  worker: WorkerSpec | undefined,
  attachments: readonly Attachment[],
): void {
  if (step.worker === SELF_WORKER) return;
  const files = filesOfStep(step, attachments);
  const images = files.filter((file) => file.kind === 'image');
  if (images.length === 0 || worker?.vision === true) return;
  const name = worker ? labelOf(worker) : step.worker;
  const which = images.map((file) => `“${file.name}”`).join(', ');
  throw new StepFilesError(
    index,
    `Step ${index} would send ${images.length === 1 ? 'the image' : 'the images'} ${which} to ${name}, which takes no images: nothing was sent. Give the image to a worker that takes images, or leave it out of that step.`,
  );
}

/** Whether a step carries an image: a worker that takes it over must take images too. */
export function stepHasImages(step: Pick<Step, 'files'>, attachments: readonly Attachment[]): boolean {
  return filesOfStep(step, attachments).some((file) => file.kind === 'image');
}
