/**
 * The attached files of one step: only those its `files` names, in the step's own message (a file given
 * to step 1 is in no other step's request), text as text and images as image parts; and the prompt tokens
 * they add, by each model's image rule.
 */
import { attachmentParts } from '../attachments/parts.ts';
import { imageTokenRule, imageTokens } from '../attachments/tokens.ts';
import type { Attachment } from '../attachments/types.ts';
import { type ChatMessage, type ContentPart, type PartsMessage, textMessage } from '../shared/chat.ts';
import { type PlanFiles, resolveFiles } from '../shared/plan/files.ts';
import type { Step } from '../shared/plan/index.ts';
import { estimatePromptTokens } from '../shared/token-estimate.ts';
import { labelOf, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

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
 * The step's messages with its files: the last user turn (its own task) becomes the files' parts, then
 * the task, so the files sit beside the instruction that uses them. Without files, the messages as they are.
 */
export function withStepFiles(messages: ChatMessage[], files: readonly Attachment[]): PartsMessage[] {
  if (files.length === 0) return messages;
  const last = messages.at(-1);
  if (last?.role !== 'user') throw new Error('A step’s messages must end with its task.');
  const parts: ContentPart[] = [...files.flatMap(attachmentParts), { type: 'text', text: last.content }];
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
