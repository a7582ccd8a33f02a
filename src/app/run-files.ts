/**
 * The attached files of each run the page starts, by run id, and what each part of a run is told of them:
 * the conductor their summaries, the plan checks and estimate the files themselves, the executor the files
 * to send. Kept per app state (createRuns), never at module level.
 */

import { attachmentSummary } from '../attachments/summary.ts';
import type { Attachment } from '../attachments/types.ts';
import { planFilesOf } from '../executor/step-files.ts';
import { refOf } from '../records/attachment-store.ts';
import type { RunHistoryStore } from '../records/run-store.ts';
import type { AttachmentRef, RunRecord } from '../records/runs-db.ts';
import type { AttachmentSummary } from '../shared/conductor-api.ts';
import type { PlanFiles } from '../shared/plan/files.ts';
import { storageErrorText } from '../shared/storage-error.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { AskInput } from './runs/run-model.ts';

export function createRunFiles() {
  const byRun = new Map<string, readonly Attachment[]>();
  return {
    set(runId: string, files: readonly Attachment[] | undefined): void {
      if (files && files.length > 0) byRun.set(runId, files);
    },
    get(runId: string): readonly Attachment[] {
      return byRun.get(runId) ?? [];
    },
    /** A run ended or was left: its files live on in the run store, not here. */
    forget(runId: string): void {
      byRun.delete(runId);
    },
  };
}

/**
 * One file of a run, by content hash: from this page's memory while the run is here, else from the run
 * store (an answer's citation opens its passage in this local copy). Absent when the run has no such file
 * or the store no longer keeps it.
 */
export async function fileOfRun(
  here: readonly Attachment[],
  refs: readonly AttachmentRef[] | undefined,
  store: () => Promise<Pick<RunHistoryStore, 'getAttachments'>>,
  id: string,
): Promise<Attachment | undefined> {
  const found = here.find((file) => file.id === id);
  if (found) return found;
  const ref = refs?.find((r) => r.id === id);
  return ref ? (await (await store()).getAttachments([ref]))[0] : undefined;
}

/** The run view's list of files (none without files). */
export function viewFiles(files: readonly Attachment[]): { attachments?: ReturnType<typeof refOf>[] } {
  return files.length > 0 ? { attachments: files.map(refOf) } : {};
}

/** The plan request's files: summaries only (the conductor never reads a whole file). */
export function planRequestFiles(
  files: readonly Attachment[],
  wholeFileTokens?: number | null,
): { attachments?: AttachmentSummary[] } {
  return files.length > 0
    ? { attachments: files.map((file) => attachmentSummary(file, undefined, wholeFileTokens)) }
    : {};
}

/** The plan checks' view of the files (an image for a text-only worker blocks the run), when there are any. */
export function checkedFiles(
  files: readonly Attachment[],
  pool: readonly WorkerSpec[],
): { files?: PlanFiles } {
  return files.length > 0 ? { files: planFilesOf(files, pool) } : {};
}

/** The executor's and the estimate's option, when there are files. */
export function withAttachments(files: readonly Attachment[]): { attachments?: readonly Attachment[] } {
  return files.length > 0 ? { attachments: files } : {};
}

/**
 * Keeps a run's files in the run store before its first request. A store that refuses them (a full disk)
 * loses nothing sent: the run goes on with the files in memory, and the returned line tells the user.
 */
export async function keepRunFiles(
  store: Pick<RunHistoryStore, 'putAttachments'>,
  files: readonly Attachment[],
): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  try {
    await store.putAttachments(files);
    return undefined;
  } catch (error) {
    return `The attached files could not be saved: ${storageErrorText(error).slice(0, 160)}. The run goes on with them; History will list it without their contents.`;
  }
}

/** A stored run's files as its export writes them (none without files). */
export async function exportedFiles(
  store: Pick<RunHistoryStore, 'getAttachments'>,
  run: Pick<RunRecord, 'attachments'>,
): Promise<unknown[]> {
  if (!run.attachments?.length) return [];
  const { exportFile } = await import('../attachments/export.ts');
  return Promise.all((await store.getAttachments(run.attachments)).map(exportFile));
}

/**
 * Stores the files of an imported run, each checked against its hash; a file left out (malformed, or not
 * its hash) is said on the run, which is imported without it.
 */
export async function importedFiles(
  store: Pick<RunHistoryStore, 'putAttachments'>,
  data: { run: RunRecord; files?: unknown[] },
): Promise<void> {
  if (!data.files?.length) return;
  const { importFiles } = await import('../attachments/export.ts');
  const names = new Map((data.run.attachments ?? []).map((ref) => [ref.id, ref.name]));
  const { files, problems } = await importFiles(data.files, names);
  await store.putAttachments(files);
  if (problems.length > 0) data.run.error = [data.run.error, ...problems].filter(Boolean).join(' ');
}

/** A one-step plan made on the page answers the question with every file. */
export function allFiles(input: Pick<AskInput, 'attachments'>): { files?: 'all' } {
  return input.attachments && input.attachments.length > 0 ? { files: 'all' } : {};
}
