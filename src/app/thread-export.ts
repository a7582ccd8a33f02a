import { check } from '../records/record-schema.ts';
import type { RunRecord, StepRecord } from '../records/runs-db.ts';
import { THREAD_SCHEMA_VERSION, type ThreadRecord, ThreadRecordSchema } from '../records/thread-store.ts';
import { nextTask } from '../shared/next-task.ts';
import { exportRun, exportRunMarkdown, fenced, inline, readRunExport } from './export.ts';

/**
 * A whole thread as a portable file: its record and every run of every branch (edits and regenerations
 * included), each as a run export is (src/app/export.ts: no key, worker URLs cleaned, untrusted text
 * checked on the way in). `version` is the thread record's layout: a file of another is refused by name.
 */
export interface ThreadExport {
  format: 'baton-thread';
  version: typeof THREAD_SCHEMA_VERSION;
  exportedAt: string;
  thread: ThreadRecord;
  runs: ThreadRun[];
}

export interface ThreadRun {
  run: RunRecord;
  steps: StepRecord[];
  /** The run's attached files as a run export carries them (src/attachments/export.ts); absent without. */
  files?: unknown[];
}

export function exportThread(
  thread: ThreadRecord,
  runs: readonly ThreadRun[],
  now = new Date(),
): ThreadExport {
  return {
    format: 'baton-thread',
    version: THREAD_SCHEMA_VERSION,
    exportedAt: now.toISOString(),
    thread: { ...thread },
    runs: runs.map(({ run, steps, files }) => {
      const one = exportRun(run, steps, now, files);
      return { run: one.run, steps: one.steps, ...(one.files ? { files: one.files } : {}) };
    }),
  };
}

export function exportThreadJson(thread: ThreadRecord, runs: readonly ThreadRun[]): string {
  return JSON.stringify(exportThread(thread, runs), null, 2);
}

/**
 * The branch on screen as a report: the title, then each turn as a run's report is written (its answers
 * formatted and inert, everything else fenced or escaped), one after another.
 */
export function exportThreadMarkdown(thread: ThreadRecord, branch: readonly ThreadRun[]): string {
  const lines = [`# ${inline(thread.title || 'Thread')}`, '', `- Turns: ${branch.length}`, ''];
  // The thread's instructions went to every worker: fenced as written, inert as any text of the report.
  if (thread.instructions)
    lines.push('Instructions for every worker:', '', ...fenced(thread.instructions), '');
  branch.forEach(({ run, steps }, i) => {
    lines.push('---', '', `Turn ${i + 1} of ${branch.length}`, '', exportRunMarkdown(run, steps), '');
  });
  return lines.join('\n');
}

export type ThreadImportResult = { ok: true; data: ThreadExport } | { ok: false; error: string };

/**
 * Runs read between two pauses: each is checked by its schema and its plan validated, about a millisecond,
 * so a chunk stays well under a long task (50 ms) and a 1,000-turn file no longer freezes the page.
 */
export const IMPORT_CHUNK_RUNS = 20;

/**
 * Reads an exported thread: the thread record by its schema, each run as a run import reads it, and the
 * links between turns (each turn's previous turn must be in the file, one turn earlier), so an import
 * cannot make a branch that does not hold together. A file of another layout is refused, naming it.
 * `pause` is awaited between chunks of runs (the page's next task by default).
 */
export async function parseThreadImport(
  text: string,
  pause: () => Promise<void> = nextTask,
): Promise<ThreadImportResult> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `This file is not JSON: ${(error as Error).message}` };
  }
  const file = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (file.format !== 'baton-thread') {
    return { ok: false, error: 'This is not a Baton thread export (no "format": "baton-thread").' };
  }
  if (file.version !== THREAD_SCHEMA_VERSION) {
    return {
      ok: false,
      error: `This thread was exported with schema version ${JSON.stringify(file.version) ?? 'undefined'}; this Baton reads version ${THREAD_SCHEMA_VERSION} only.`,
    };
  }
  const thread = check(ThreadRecordSchema, file.thread);
  if (!thread.ok) return { ok: false, error: `The export's thread is malformed: ${thread.problem}.` };
  if (!Array.isArray(file.runs) || file.runs.length === 0) {
    return { ok: false, error: 'The export has no runs: a thread has at least one turn.' };
  }
  const runs: ThreadRun[] = [];
  for (const [i, entry] of file.runs.entries()) {
    if (i > 0 && i % IMPORT_CHUNK_RUNS === 0) await pause();
    const one = readRunExport({ format: 'baton-run', version: 1, ...(entry as object) });
    if (!one.ok) return { ok: false, error: `Run ${i + 1} of the thread: ${one.error}` };
    runs.push({
      run: { ...one.data.run, threadId: thread.value.id },
      steps: one.data.steps,
      ...(one.data.files ? { files: one.data.files } : {}),
    });
  }
  const byId = new Map(runs.map((r) => [r.run.id, r.run]));
  for (const { run } of runs) {
    const turn = run.turn ?? 0;
    const parent = run.parentRunId === undefined ? undefined : byId.get(run.parentRunId);
    const holds =
      run.parentRunId === undefined ? turn === 0 : parent !== undefined && (parent.turn ?? 0) === turn - 1;
    if (!holds) {
      return {
        ok: false,
        error: `Turn ${turn + 1} (run ${run.id}) does not follow a turn of this file: the thread does not hold together.`,
      };
    }
  }
  const record = thread.value as ThreadRecord;
  const leafRunId = record.leafRunId && byId.has(record.leafRunId) ? record.leafRunId : undefined;
  const { leafRunId: _dropped, ...rest } = record;
  return {
    ok: true,
    data: {
      format: 'baton-thread',
      version: THREAD_SCHEMA_VERSION,
      exportedAt: typeof file.exportedAt === 'string' ? file.exportedAt : '',
      thread: leafRunId ? { ...rest, leafRunId } : rest,
      runs,
    },
  };
}
