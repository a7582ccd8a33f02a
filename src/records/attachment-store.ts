/**
 * Attachments in the runs database: each file once, keyed by its content hash, in its own object store; a
 * run keeps references (name, kind, size, hash) and the list of hashes it uses, indexed, so a file is
 * deleted with the last run that refers to it. The functions work inside the run store's transactions
 * (run-store.ts), so a run and its files are written and deleted together.
 */
import type { IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { Attachment } from '../attachments/types.ts';
import { ATTACHMENTS_STORE } from '../shared/runs-layout.ts';
import type { AttachmentRef, RunsDB, StoredAttachment } from './runs-db.ts';

export { ATTACHMENTS_STORE };
/** The runs index over each run's `attachmentIds` (one entry per hash). */
export const ATTACHMENT_IDS_INDEX = 'attachmentIds';

export function refOf(attachment: Attachment): AttachmentRef {
  const { id, name, kind, mime, size } = attachment;
  return { id, name, kind, mime, size };
}

/** A run record's fields for its files (none without files). */
export function runFields(attachments: readonly Attachment[] | undefined): {
  attachments?: AttachmentRef[];
  attachmentIds?: string[];
} {
  if (!attachments || attachments.length === 0) return {};
  return { attachments: attachments.map(refOf), attachmentIds: [...new Set(attachments.map((a) => a.id))] };
}

/**
 * The schema step that adds attachments: the store of files by hash, and the runs' index of the hashes
 * each uses. Its own upgrade step, so other steps of the runs database stay apart from it.
 */
export function addAttachmentStores(
  database: IDBPDatabase<RunsDB>,
  tx: IDBPTransaction<RunsDB, StoreNames<RunsDB>[], 'versionchange'>,
): void {
  database.createObjectStore(ATTACHMENTS_STORE, { keyPath: 'id' });
  tx.objectStore('runs').createIndex(ATTACHMENT_IDS_INDEX, 'attachmentIds', { multiEntry: true });
}

/** A read-write transaction over (at least) the runs and the attachments. */
type AttachmentsTx = IDBPTransaction<RunsDB, StoreNames<RunsDB>[], 'readwrite'>;

/** Writes the files not stored yet (a file already there, from another run, is kept as it is). */
export async function putAttachments(tx: AttachmentsTx, attachments: readonly Attachment[]): Promise<void> {
  const store = tx.objectStore(ATTACHMENTS_STORE);
  for (const attachment of attachments) {
    if ((await store.getKey(attachment.id)) !== undefined) continue;
    const { name: _name, ...stored } = attachment;
    await store.put(stored as StoredAttachment);
  }
}

/** The files of `refs` as attachments under their names in that run; a file missing from the store is left out. */
export async function readAttachments(
  db: IDBPDatabase<RunsDB>,
  refs: readonly AttachmentRef[],
): Promise<Attachment[]> {
  const tx = db.transaction(ATTACHMENTS_STORE);
  const found = await Promise.all(refs.map((ref) => tx.store.get(ref.id)));
  await tx.done;
  return refs.flatMap((ref, i) => {
    const stored = found[i];
    return stored ? [{ ...stored, name: ref.name } as Attachment] : [];
  });
}

/** Deletes each of `ids` that no run refers to any more (run inside the transaction that deleted the run). */
export async function deleteUnreferenced(tx: AttachmentsTx, ids: readonly string[]): Promise<void> {
  const index = tx.objectStore('runs').index(ATTACHMENT_IDS_INDEX);
  for (const id of ids) {
    if ((await index.count(id)) === 0) await tx.objectStore(ATTACHMENTS_STORE).delete(id);
  }
}

/** Bytes of every stored file (each once, however many runs use it). */
export async function storedAttachmentBytes(db: IDBPDatabase<RunsDB>): Promise<number> {
  let bytes = 0;
  let cursor = await db.transaction(ATTACHMENTS_STORE).store.openCursor();
  while (cursor) {
    bytes += cursor.value.size;
    cursor = await cursor.continue();
  }
  return bytes;
}
