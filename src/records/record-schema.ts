import { z } from 'zod';
import { TEXT_KINDS } from '../attachments/types.ts';
import { citationOf } from '../providers/web-search.ts';
import { FilesSchema, PlanSchema, SeesSchema } from '../shared/plan/schema.ts';
import type { RunSummary } from './runs-db.ts';

export const AttachmentRefSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  kind: z.enum([...TEXT_KINDS, 'pdf', 'image']),
  mime: z.string(),
  size: z.number().int().nonnegative(),
});

// One schema for every run record that comes from outside this page's memory: read back from IndexedDB
// (written by an older version, another tab, or an import made before imports were checked) or read from an
// export file. A record that fails is skipped with the reason, never handed to code that assumes its shape.
// Objects are loose: a field added by a newer writer survives a read instead of being stripped.

const count = z.number().finite().nonnegative();
const epochMs = z.number().finite();

// A worker's id, provider, URL and model are what a resume sends requests with: they must be right. The
// rest is display and tuning, so a missing or odd value there falls back instead of losing the run.
export const StoredWorkerSchema = z.looseObject({
  id: z.string().min(1),
  label: z.string().catch(''),
  strengths: z.string().catch(''),
  providerId: z.string(),
  baseURL: z.string(),
  model: z.string(),
  systemPrompt: z.string().optional(),
  maxConcurrency: z.number().int().positive().catch(1),
  price: z
    .object({ inputPerM: count, outputPerM: count, cachedInputPerM: count.optional() })
    .optional()
    .catch(undefined),
  costTier: z.enum(['low', 'medium', 'high']).optional().catch(undefined),
  webSearch: z.boolean().optional().catch(undefined),
  vision: z.boolean().optional().catch(undefined),
  enabled: z.boolean().catch(true),
});

export const RunStatusSchema = z.enum(['running', 'done', 'failed', 'cancelled', 'partial']);
/** A stored run's status: the executor's, or that of a run that never reached it (store.ts). */
export const StoredRunStatusSchema = z.enum([...RunStatusSchema.options, 'planned', 'planning-failed']);
export const StepStateSchema = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);

const UsageSchema = z.looseObject({
  promptTokens: count,
  completionTokens: count,
  estimated: z.literal(true).optional(),
  // Details a newer writer adds: a damaged one is dropped, never the record.
  reasoningTokens: count.optional().catch(undefined),
  cachedPromptTokens: count.optional().catch(undefined),
  estimator: z.enum(['o200k', 'chars']).optional().catch(undefined),
});

const RequestSpendSchema = UsageSchema.extend({
  attempt: z.number().int().nonnegative(),
  outcome: z.enum(['in-flight', 'answered', 'failed', 'cancelled', 'interrupted']),
  cost: count.optional(),
  costReported: z.literal(true).optional().catch(undefined),
});

export const RunTotalsSchema = z.looseObject({
  promptTokens: count,
  completionTokens: count,
  cost: count,
  unpriced: count.optional().catch(undefined),
  estimated: z.literal(true).optional().catch(undefined),
  estimator: z.enum(['o200k', 'chars']).optional().catch(undefined),
  steps: count,
  done: count,
  failed: count,
  cancelled: count,
});

// A run's place in its thread: a damaged one makes the run a thread of its own (threadLinkOf), never lost.
const threadFields = {
  threadId: z.string().min(1).optional().catch(undefined),
  turn: z.number().int().nonnegative().optional().catch(undefined),
  parentRunId: z.string().min(1).optional().catch(undefined),
  keptKey: z.literal(true).optional().catch(undefined),
};

/** What a worker was sent of the thread's earlier turns (src/executor/turn-history.ts). */
export const StepHistorySchema = z.object({
  kept: count,
  cut: count,
  shortened: z.literal(true).optional(),
  budgetTokens: count,
  tokens: count,
  // A damaged list loses only the card's "which turns and why", never the step.
  turns: z
    .array(
      z.object({
        turn: z.number().int().nonnegative(),
        why: z.enum(['newest', 'matched', 'recent']),
        terms: z.array(z.string()).optional(),
      }),
    )
    .optional()
    .catch(undefined),
});

export const RunRecordSchema = z.looseObject({
  // Attached files: a damaged list is dropped (the run is shown without its files), never the run.
  attachments: z.array(AttachmentRefSchema).optional().catch(undefined),
  attachmentIds: z.array(z.string()).optional().catch(undefined),
  id: z.string().min(1),
  question: z.string(),
  mode: z.string(),
  pool: z.array(StoredWorkerSchema),
  plan: PlanSchema,
  planComplete: z.boolean().catch(true),
  includeQuestion: z.boolean().catch(true),
  status: StoredRunStatusSchema,
  createdAt: epochMs,
  updatedAt: epochMs,
  totals: RunTotalsSchema,
  answer: z.string().optional(),
  error: z.string().optional(),
  // What the error said in the machinery's own words (shown behind Details): display, so dropped if damaged.
  errorDetails: z.array(z.string()).optional().catch(undefined),
  planOnly: z.literal(true).optional().catch(undefined),
  // Auto mode's choice is display: a damaged one is dropped, never the run.
  chosenBy: z
    .object({ by: z.enum(['auto', 'thread', 'user']), strategy: z.string(), reason: z.string() })
    .optional()
    .catch(undefined),
  // What the conductor changed of its plan (added after the first records): display, so a record without
  // it opens as before and a damaged one is dropped, never the run.
  planNote: z
    .object({ text: z.string(), details: z.array(z.string()) })
    .optional()
    .catch(undefined),
  ...threadFields,
});

export const StepRecordSchema = z.looseObject({
  runId: z.string().min(1),
  index: z.number().int().nonnegative(),
  worker: z.string(),
  task: z.string(),
  sees: SeesSchema,
  // The attached files a step got: a damaged list is dropped (the step is shown without them), never the run.
  files: FilesSchema.optional().catch(undefined),
  depth: z.number().int().nonnegative(),
  state: StepStateSchema,
  text: z.string(),
  // The model's reasoning, shown apart from the answer (absent in older records and for most models).
  reasoning: z.string().optional().catch(undefined),
  // A searching worker's sources: display only, so a source that is not an http(s) link is dropped, and a
  // damaged list is dropped, never the step.
  citations: z
    .array(z.looseObject({ url: z.string(), title: z.string().optional() }))
    .transform((list) => list.flatMap((c) => citationOf(c.url, c.title) ?? []))
    .optional()
    .catch(undefined),
  // The tool calls of the answer: display only, so a damaged list is dropped, never the step.
  toolCalls: z
    .array(
      z.object({
        tool: z.string().max(200),
        outcome: z.enum(['called', 'failed', 'refused', 'declined', 'invalid', 'locked']),
      }),
    )
    .optional()
    .catch(undefined),
  // Loose, so `estimated` (usage the provider did not send) survives a read.
  usage: UsageSchema.optional(),
  cost: count.optional(),
  // What each request of the step spent: counted in the run's totals, so a damaged list drops the run's
  // spend accounting, never the run.
  requests: z.array(RequestSpendSchema).optional().catch(undefined),
  notice: z.string().optional().catch(undefined),
  // Who took the step over from whom (failover): display only, so a damaged list is dropped, not the run.
  takeovers: z
    .array(z.looseObject({ from: z.string(), to: z.string(), reason: z.string(), at: epochMs }))
    .optional()
    .catch(undefined),
  pin: z.literal(true).optional().catch(undefined),
  cutAtLimit: z.literal(true).optional().catch(undefined),
  continuing: z.number().int().nonnegative().optional().catch(undefined),
  // What the step was sent of the thread's earlier turns: display, so dropped if damaged.
  history: StepHistorySchema.optional().catch(undefined),
  // What the thread's instructions added to the step's input: display, so dropped if damaged.
  instructions: z
    .object({ tokens: z.number().int().nonnegative(), cost: z.number().nonnegative().optional() })
    .optional()
    .catch(undefined),
  // What the step was sent of each attached file: display, so dropped if damaged.
  sent: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string(),
        bytes: count,
        passages: z.array(z.looseObject({ n: count, place: z.string(), chars: count })).optional(),
        total: count.optional(),
        weak: z.literal(true).optional(),
      }),
    )
    .optional()
    .catch(undefined),
  timings: z.looseObject({
    queuedAt: epochMs.optional(),
    startedAt: epochMs.optional(),
    firstTokenAt: epochMs.optional(),
    endedAt: epochMs.optional(),
  }),
  attempts: z.number().int().nonnegative(),
  error: z.string().optional(),
});

export const RunSummarySchema = z.object({
  id: z.string().min(1),
  question: z.string(),
  mode: z.string(),
  status: StoredRunStatusSchema,
  createdAt: epochMs,
  updatedAt: epochMs,
  steps: count,
  cost: count,
  unpriced: z.literal(true).optional().catch(undefined),
  estimated: z.literal(true).optional().catch(undefined),
  estimator: z.enum(['o200k', 'chars']).optional().catch(undefined),
  answer: z.string().optional(),
  finalWorker: z.string().optional().catch(undefined),
  ...threadFields,
});

// The compiler checks that what the schemas accept is what the rest of the code reads.
type Accepts<Schema extends z.ZodType, T> = z.output<Schema> extends T ? true : never;
const _run: Accepts<typeof RunRecordSchema, import('./runs-db.ts').RunRecord> = true;
const _step: Accepts<typeof StepRecordSchema, import('./runs-db.ts').StepRecord> = true;
const _summary: Accepts<typeof RunSummarySchema, RunSummary> = true;
void [_run, _step, _summary];

/** "totals: expected object, received undefined; question: expected string, received number" */
export function describeProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const where = issue.path.length ? issue.path.join('.') : 'the record';
      return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

export function check<T>(schema: z.ZodType<T>, value: unknown): Checked<T> {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problem: describeProblem(result.error) };
}
