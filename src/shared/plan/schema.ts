import { z } from 'zod';

/** At most this many steps in one plan (the paper's cap). */
export const DEFAULT_MAX_STEPS = 5;
/** At most this many levels of `self` recursion. */
export const DEFAULT_MAX_DEPTH = 2;
/**
 * Longest task and thought, in characters (Unicode code points, as JSON Schema's `maxLength` counts).
 * One source for the constrained decoder's schema and for validation, so a plan the schema lets through
 * is never rejected for its length, and one written without the schema (a hand edit, the paper's
 * format, an engine that ignores `maxLength`) cannot be longer.
 */
export const DEFAULT_MAX_TASK_LENGTH = 600;
export const DEFAULT_MAX_THOUGHT_LENGTH = 800;

/** `"all"` (every earlier step), `[]` (none) or a list of earlier step indices. */
export const SeesSchema = z.union([z.literal('all'), z.array(z.number().int().nonnegative())]);

/**
 * Passages of one attached file rather than all of it: those its search finds for `find` (absent: the
 * step's own task is the query), chosen on the device. `passages` is the user's, set in review (the
 * passages ticked, by number), never the conductor's: the decoding schema leaves it out.
 */
export const FilePassagesSchema = z.object({
  file: z.number().int().nonnegative(),
  find: z.string().optional(),
  passages: z.array(z.number().int().nonnegative()).optional(),
});

/** One file of a step: its index (the whole file), or passages of it. */
export const FileEntrySchema = z.union([z.number().int().nonnegative(), FilePassagesSchema]);

/**
 * The attached files a step is sent: `"all"`, or entries naming the question's attachments by index.
 * Absent or `[]`: none, so a file goes only to the steps (and so only to the providers) that name it.
 */
export const FilesSchema = z.union([z.literal('all'), z.array(FileEntrySchema)]);

/**
 * One step: which worker, the instruction written for it, which earlier steps it reads, and which attached
 * files it gets. `pin` is the user's, set while reviewing a plan, never the conductor's (the decoding
 * schema leaves it out): a pinned step stays on its worker and fails rather than fail over to another one.
 */
export const StepSchema = z.object({
  worker: z.string(),
  task: z.string(),
  sees: SeesSchema,
  files: FilesSchema.optional(),
  /** The tools (`server.tool`) the step's worker may call: least privilege, one grant per step (tools.ts). */
  tools: z.array(z.string()).optional(),
  pin: z.literal(true).optional(),
});

/** A workflow. Property order matters: a model writes `thought` before `steps`. */
export const PlanSchema = z.object({
  thought: z.string().optional(),
  steps: z.array(StepSchema),
});

export type Sees = z.infer<typeof SeesSchema>;
export type Files = z.infer<typeof FilesSchema>;
export type FileEntry = z.infer<typeof FileEntrySchema>;
export type FilePassages = z.infer<typeof FilePassagesSchema>;
export type Step = z.infer<typeof StepSchema>;
export type Plan = z.infer<typeof PlanSchema>;
