import { z } from 'zod';
import type { Citation } from '../providers/transport.ts';
import { citationOf } from '../providers/web-search.ts';
import { check, RunRecordSchema, StepRecordSchema } from '../records/record-schema.ts';
import { priceCopy } from '../records/run-store.ts';
import type { RunRecord, StepRecord } from '../records/runs-db.ts';
import { formatCost } from '../shared/format-cost.ts';
import { validatePlan } from '../shared/plan/index.ts';
import { labelsOf } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { ESTIMATED, estimateNote } from './format.ts';
import { codeBlock, inertMarkdown, inertProblems } from './inert-markdown.ts';
import { seesText } from './sees-text.ts';
import { statusText } from './status-text.ts';
import { workerDisplayName } from './worker-names.ts';

/** A run as a portable file. Keys are never part of a run; worker URLs lose credentials and queries too. */
export interface RunExport {
  format: 'baton-run';
  version: 1;
  exportedAt: string;
  run: RunRecord;
  steps: StepRecord[];
  /** The run's attached files (src/attachments/export.ts); absent when it had none or they were left out. */
  files?: unknown[];
}

/** Only the public settings of a worker, with the base URL stripped of user info, query and fragment. */
function cleanWorker(w: WorkerSpec): WorkerSpec {
  let baseURL = w.baseURL;
  try {
    const url = new URL(w.baseURL);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    baseURL = url.toString().replace(/\/$/, '');
  } catch {
    baseURL = '';
  }
  const copy: WorkerSpec = {
    id: w.id,
    label: w.label,
    strengths: w.strengths,
    providerId: w.providerId,
    baseURL,
    model: w.model,
    maxConcurrency: w.maxConcurrency,
    enabled: w.enabled,
  };
  if (w.price) copy.price = priceCopy(w.price);
  if (w.costTier) copy.costTier = w.costTier;
  if (w.webSearch) copy.webSearch = true;
  if (w.vision) copy.vision = true;
  if (w.systemPrompt !== undefined) copy.systemPrompt = w.systemPrompt;
  return copy;
}

export function exportRun(
  run: RunRecord,
  steps: readonly StepRecord[],
  now = new Date(),
  files?: readonly unknown[],
): RunExport {
  return {
    format: 'baton-run',
    version: 1,
    exportedAt: now.toISOString(),
    run: { ...run, pool: run.pool.map(cleanWorker) },
    steps: steps.map((s) => ({ ...s })),
    ...(files && files.length > 0 ? { files: [...files] } : {}),
  };
}

/** The run as JSON; `files` (exported attachments), when given, go with it. */
export function exportRunJson(
  run: RunRecord,
  steps: readonly StepRecord[],
  files?: readonly unknown[],
): string {
  return JSON.stringify(exportRun(run, steps, new Date(), files), null, 2);
}

/** Untrusted text as an inert fenced block: a viewer that renders HTML shows it as text. */
export function fenced(text: string): string[] {
  return [codeBlock(text, 'text')];
}

/**
 * An answer with its formatting (headings under the report's own, lists, tables, code) and nothing live;
 * fenced as plain text when the rewritten Markdown still holds something live (a construct the rewrite
 * does not know), so an export is inert whatever the answer.
 */
function formattedAnswer(text: string, headingOffset: number): string[] {
  const formatted = inertMarkdown(text, { headingOffset });
  return inertProblems(formatted).length === 0 ? [formatted] : fenced(text);
}

/**
 * Untrusted text on one line of Markdown (a heading, a list item, a link's label): no HTML, no link or
 * image syntax, no line break that could start a block of its own. Brackets are character references,
 * not backslash escapes: marked drops the backslashes of a link's label before it reads the label, so
 * `!\[x\](url)` in a source's title became a live image there; `&#91;` is text in every dialect.
 */
export function inline(text: string): string {
  return (
    text
      .replace(/[\r\n]+/g, ' ')
      .replace(/\\/g, '\\\\')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\[/g, '&#91;')
      .replace(/\]/g, '&#93;')
      // No bare-URL autolinks either (GFM makes `http://…` and `www.…` live links).
      .replace(/:\/\//g, '\\://')
      .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\\.`)
  );
}

/**
 * A searching worker's sources as a numbered list of links: only http(s) URLs (checked again: a record may
 * come from an import), each as a link destination in angle brackets (`URL.href` has no space, `<` or `>`
 * to break out of it), its title escaped like any untrusted line, and its host beside it.
 */
function sourceLines(citations: readonly Citation[] | undefined): string[] {
  const links = (citations ?? []).flatMap((c) => citationOf(c.url, c.title) ?? []);
  if (links.length === 0) return [];
  return [
    '**Sources**',
    '',
    ...links.map((c, i) => {
      const host = inline(new URL(c.url).host);
      return `${i + 1}. [${inline(c.title ?? host)}](<${c.url}>) · ${host}`;
    }),
    '',
  ];
}

/**
 * A readable report: question, plan, each step's task and answer, totals, workers by their labels.
 * Answers keep their Markdown, rewritten so nothing in them is live (src/app/inert-markdown.ts); whatever
 * else a worker, the conductor or an imported file wrote is fenced or escaped. Should the whole report
 * still read as live anywhere, its answers are fenced as plain text instead.
 */
export function exportRunMarkdown(run: RunRecord, steps: readonly StepRecord[]): string {
  const report = markdownReport(run, steps, formattedAnswer);
  return inertProblems(report).length === 0 ? report : markdownReport(run, steps, fenced);
}

function markdownReport(
  run: RunRecord,
  steps: readonly StepRecord[],
  answerLines: (text: string, headingOffset: number) => string[],
): string {
  const lines: string[] = [];
  lines.push(`# ${inline(run.question.split('\n')[0] ?? '')}`, '');
  if (run.question.includes('\n')) lines.push(...fenced(run.question), '');
  const approx = run.totals.estimated ? ESTIMATED : '';
  lines.push(
    `- Mode: ${inline(run.mode)}`,
    `- Status: ${statusText(run.status)}`,
    `- Started: ${new Date(run.createdAt).toISOString()}`,
    `- Tokens: ${approx}${run.totals.promptTokens} in, ${approx}${run.totals.completionTokens} out`,
    `- Cost: ${approx}${formatCost(run.totals.cost)}`,
    ...(run.totals.estimated ? [`- In part ${estimateNote(run.totals.estimator)}.`] : []),
    '',
  );
  if (run.error) lines.push(`**Error:** ${inline(run.error)}`, '');
  if (run.plan.thought) lines.push('**Plan**', '', ...fenced(run.plan.thought), '');
  // The answer's own headings go under "## Answer" (its # is a ###), a step's under "### Step".
  if (run.answer !== undefined) lines.push('## Answer', '', ...answerLines(run.answer, 2), '');
  lines.push('## Steps', '');
  const labels = labelsOf(run.pool);
  const name = (id: string) => inline(workerDisplayName(id, labels));
  for (const step of steps) {
    const worker = run.pool.find((w) => w.id === step.worker);
    // As the step card says it: "all" on the first step is nothing.
    const sees = seesText(step.sees, step.index);
    const model = worker ? ` (${inline(worker.model)})` : '';
    lines.push(
      `### Step ${step.index}: ${name(step.worker)}${model}`,
      '',
      `- State: ${step.state}`,
      `- S${sees.slice(1)}`,
    );
    if (step.usage) {
      const mark = step.usage.estimated ? ESTIMATED : '';
      const note = step.usage.estimated ? ` (${estimateNote(step.usage.estimator)})` : '';
      lines.push(
        `- Tokens: ${mark}${step.usage.promptTokens} in, ${mark}${step.usage.completionTokens} out${note}`,
      );
    }
    if (step.timings.startedAt !== undefined && step.timings.endedAt !== undefined) {
      lines.push(`- Time: ${step.timings.endedAt - step.timings.startedAt} ms`);
    }
    if (step.error) lines.push(`- Error: ${inline(step.error)}`);
    for (const t of step.takeovers ?? []) {
      lines.push(`- Taken over: ${name(t.from)} failed (${inline(t.reason)}), ${name(t.to)} took over`);
    }
    lines.push('', '**Task**', '', ...fenced(step.task), '');
    if (step.text) lines.push('**Answer**', '', ...answerLines(step.text, 3), '');
    lines.push(...sourceLines(step.citations));
  }
  return lines.join('\n');
}

// An export's steps may predate `runId` on steps: the importer sets it.
const ImportedStepSchema = StepRecordSchema.extend({ runId: z.string().optional() });

export type ImportResult = { ok: true; data: RunExport } | { ok: false; error: string };

/**
 * Reads an exported run. Checks the shape with the same schema as every stored record (then the plan
 * against its own pool) rather than trusting the file; the run keeps its id unless `newId` is given, and an
 * unfinished run is stored as cancelled (it cannot be resumed from a file).
 */
export function parseRunImport(text: string, options: { newId?: string } = {}): ImportResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `This file is not JSON: ${(error as Error).message}` };
  }
  return readRunExport(raw, options);
}

/** An exported run already parsed from JSON (a file of its own, or one run of a thread's export). */
export function readRunExport(raw: unknown, options: { newId?: string } = {}): ImportResult {
  if (typeof raw !== 'object' || raw === null || (raw as { format?: unknown }).format !== 'baton-run') {
    return { ok: false, error: 'This is not a Baton run export (no "format": "baton-run").' };
  }
  const file = raw as {
    version?: unknown;
    run?: unknown;
    steps?: unknown;
    exportedAt?: unknown;
    files?: unknown;
  };
  if (file.version !== 1) return { ok: false, error: `Unsupported export version ${String(file.version)}.` };
  const run = check(RunRecordSchema, file.run);
  if (!run.ok) return { ok: false, error: `The export's run is malformed: ${run.problem}.` };
  const pool = run.value.pool.map(cleanWorker);
  const ids = pool.map((w) => w.id);
  const planCheck = validatePlan(run.value.plan, { workerIds: ids, allowSelf: true, maxSteps: 100 });
  if (!planCheck.ok) return { ok: false, error: `The run's plan is not valid: ${planCheck.message}` };
  if (!Array.isArray(file.steps)) return { ok: false, error: 'The export has no steps list.' };
  const id = options.newId ?? run.value.id;
  const steps: StepRecord[] = [];
  for (const [i, s] of file.steps.entries()) {
    const step = check(ImportedStepSchema, s);
    if (!step.ok) return { ok: false, error: `Step ${i} of the export is malformed: ${step.problem}.` };
    if (step.value.index !== i) {
      return { ok: false, error: `Step ${i} of the export is malformed: its index is ${step.value.index}.` };
    }
    const state =
      step.value.state === 'queued' || step.value.state === 'running' ? 'cancelled' : step.value.state;
    steps.push({ ...step.value, runId: id, state });
  }
  const record: RunRecord = {
    ...run.value,
    id,
    pool,
    plan: planCheck.plan,
    planComplete: true,
    status: run.value.status === 'running' ? 'cancelled' : run.value.status,
  };
  return {
    ok: true,
    data: {
      format: 'baton-run',
      version: 1,
      exportedAt: typeof file.exportedAt === 'string' ? file.exportedAt : '',
      run: record,
      steps,
      // Read and checked against their hashes by the importer (src/attachments/export.ts).
      ...(Array.isArray(file.files) ? { files: file.files } : {}),
    },
  };
}

/** "what-is-2-2-1a2b3c.json" */
export function exportFilename(run: Pick<RunRecord, 'id' | 'question'>, ext: string): string {
  const slug = run.question
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `${slug || 'run'}-${run.id.slice(0, 6)}.${ext}`;
}
