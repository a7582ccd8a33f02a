import type { RunRecord, StepRecord } from '../executor/store.ts';
import type { RunStatus, StepState } from '../executor/types.ts';
import { validatePlan } from '../plan/index.ts';
import type { WorkerSpec } from '../pool/types.ts';

/** A run as a portable file. Keys are never part of a run; worker URLs lose credentials and queries too. */
export interface RunExport {
  format: 'baton-run';
  version: 1;
  exportedAt: string;
  run: RunRecord;
  steps: StepRecord[];
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
  if (w.price) copy.price = { inputPerM: w.price.inputPerM, outputPerM: w.price.outputPerM };
  if (w.costTier) copy.costTier = w.costTier;
  if (w.systemPrompt !== undefined) copy.systemPrompt = w.systemPrompt;
  return copy;
}

export function exportRun(run: RunRecord, steps: readonly StepRecord[], now = new Date()): RunExport {
  return {
    format: 'baton-run',
    version: 1,
    exportedAt: now.toISOString(),
    run: { ...run, pool: run.pool.map(cleanWorker) },
    steps: steps.map((s) => ({ ...s })),
  };
}

export function exportRunJson(run: RunRecord, steps: readonly StepRecord[]): string {
  return JSON.stringify(exportRun(run, steps), null, 2);
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** A readable report: question, plan, each step's task and answer, totals. */
export function exportRunMarkdown(run: RunRecord, steps: readonly StepRecord[]): string {
  const lines: string[] = [];
  lines.push(`# ${run.question.split('\n')[0]}`, '');
  if (run.question.includes('\n')) lines.push(`> ${run.question.split('\n').join('\n> ')}`, '');
  lines.push(
    `- Mode: ${run.mode}`,
    `- Status: ${run.status}`,
    `- Started: ${new Date(run.createdAt).toISOString()}`,
    `- Tokens: ${run.totals.promptTokens} in, ${run.totals.completionTokens} out`,
    `- Cost: $${run.totals.cost.toFixed(6)}`,
    '',
  );
  if (run.plan.thought) lines.push(`**Plan:** ${run.plan.thought}`, '');
  if (run.answer !== undefined) lines.push('## Answer', '', run.answer, '');
  lines.push('## Steps', '');
  for (const step of steps) {
    const worker = run.pool.find((w) => w.id === step.worker);
    const sees = step.sees === 'all' ? 'all' : step.sees.length ? step.sees.join(', ') : 'none';
    lines.push(
      `### Step ${step.index}: ${step.worker}${worker ? ` (${worker.label}, ${worker.model})` : ''}`,
      '',
      `- State: ${step.state}`,
      `- Sees: ${sees}`,
    );
    if (step.usage) lines.push(`- Tokens: ${step.usage.promptTokens} in, ${step.usage.completionTokens} out`);
    if (step.timings.startedAt !== undefined && step.timings.endedAt !== undefined) {
      lines.push(`- Time: ${step.timings.endedAt - step.timings.startedAt} ms`);
    }
    if (step.error) lines.push(`- Error: ${step.error}`);
    const f = fence(step.task);
    lines.push('', '**Task**', '', `${f}text`, step.task, f, '');
    if (step.text) lines.push('**Answer**', '', step.text, '');
  }
  return lines.join('\n');
}

const RUN_STATUSES: readonly RunStatus[] = ['running', 'done', 'failed', 'cancelled', 'partial'];
const STEP_STATES: readonly StepState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type ImportResult = { ok: true; data: RunExport } | { ok: false; error: string };

/**
 * Reads an exported run. Checks the shape (a run, its plan against its own pool, its steps) rather than
 * trusting the file; the imported run gets a new id unless `keepId`, and an unfinished run is stored as
 * cancelled (it cannot be resumed from a file).
 */
export function parseRunImport(text: string, options: { newId?: string } = {}): ImportResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `This file is not JSON: ${(error as Error).message}` };
  }
  if (!isObject(raw) || raw.format !== 'baton-run') {
    return { ok: false, error: 'This is not a Baton run export (no "format": "baton-run").' };
  }
  if (raw.version !== 1) return { ok: false, error: `Unsupported export version ${String(raw.version)}.` };
  const run = raw.run;
  if (!isObject(run) || typeof run.question !== 'string' || typeof run.id !== 'string') {
    return { ok: false, error: 'The export has no run with a question.' };
  }
  if (!Array.isArray(run.pool) || !run.pool.every((w) => isObject(w) && typeof w.id === 'string')) {
    return { ok: false, error: 'The run has no valid pool.' };
  }
  const pool = (run.pool as unknown as WorkerSpec[]).map(cleanWorker);
  const ids = pool.map((w) => w.id);
  const planCheck = validatePlan(run.plan, { workerIds: ids, allowSelf: true, maxSteps: 100 });
  if (!planCheck.ok) return { ok: false, error: `The run's plan is not valid: ${planCheck.message}` };
  if (!Array.isArray(raw.steps)) return { ok: false, error: 'The export has no steps list.' };
  const id = options.newId ?? run.id;
  const steps: StepRecord[] = [];
  for (const [i, s] of (raw.steps as unknown[]).entries()) {
    if (
      !isObject(s) ||
      s.index !== i ||
      typeof s.worker !== 'string' ||
      typeof s.task !== 'string' ||
      typeof s.text !== 'string' ||
      !STEP_STATES.includes(s.state as StepState) ||
      !isObject(s.timings)
    ) {
      return { ok: false, error: `Step ${i} of the export is malformed.` };
    }
    const state = s.state === 'queued' || s.state === 'running' ? 'cancelled' : (s.state as StepState);
    steps.push({ ...(s as unknown as StepRecord), runId: id, state });
  }
  const status = RUN_STATUSES.includes(run.status as RunStatus) ? (run.status as RunStatus) : 'failed';
  const record: RunRecord = {
    ...(run as unknown as RunRecord),
    id,
    pool,
    plan: planCheck.plan,
    planComplete: true,
    status: status === 'running' ? 'cancelled' : status,
  };
  return {
    ok: true,
    data: {
      format: 'baton-run',
      version: 1,
      exportedAt: typeof raw.exportedAt === 'string' ? raw.exportedAt : '',
      run: record,
      steps,
    },
  };
}

/** Offers text as a file download (a blob: URL, revoked right after). */
export function downloadText(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
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
