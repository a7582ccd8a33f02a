/**
 * Which documents a request carried, as the ledger shows them: each by the name its run gave the file
 * (the ledger keeps only its content hash), else by the start of that hash, with the bytes of it that left.
 */
import type { LedgerEntry } from '../egress/ledger.ts';
import type { AttachmentRef } from '../records/runs-db.ts';

export interface DocumentOut {
  id: string;
  /** The file's name in its run (the user's file's text: shown inert), or "file 1a2b3c4d". */
  name: string;
  bytes: number;
}

/** A request's documents, most bytes first; none when it carried none (or the record is not counts). */
export function documentsOut(
  documentBytes: LedgerEntry['documentBytes'],
  names: ReadonlyMap<string, string>,
): DocumentOut[] {
  return Object.entries(documentBytes ?? {})
    .filter(([, bytes]) => typeof bytes === 'number' && Number.isFinite(bytes) && bytes >= 0)
    .map(([id, bytes]) => ({ id, name: names.get(id) ?? `file ${id.slice(0, 8)}`, bytes }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}

/** A run's files by content hash, as `documentsOut` names them. */
export function namesOf(refs: readonly AttachmentRef[] | undefined): Map<string, string> {
  return new Map((refs ?? []).map((ref) => [ref.id, ref.name]));
}

/**
 * The names of the documents `entries` carried, read from their runs (each run once). A run that is gone
 * (deleted, or its store unreadable) names nothing: its documents keep their hashes.
 */
export async function documentNames(
  entries: readonly Pick<LedgerEntry, 'runId' | 'documentBytes'>[],
  runFiles: (runId: string) => Promise<readonly AttachmentRef[] | undefined>,
): Promise<Map<string, string>> {
  const runs = [...new Set(entries.flatMap((e) => (e.runId && e.documentBytes ? [e.runId] : [])))];
  const names = new Map<string, string>();
  const found = await Promise.all(runs.map((id) => runFiles(id).catch(() => undefined)));
  for (const refs of found) for (const [id, name] of namesOf(refs)) names.set(id, name);
  return names;
}
