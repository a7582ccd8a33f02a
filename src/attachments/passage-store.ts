/**
 * Each read file's passages and their index, kept by the file's content hash: in memory for the page's
 * life, and in IndexedDB ('baton-passages', a database of its own: it is a cache, and can be dropped
 * whole) so a file attached again, or a run resumed after a reload, is not indexed again. An edited file
 * has another hash, so it gets its own index. Storage is a help, never a need: an index that cannot be
 * read or written (the disk full, a private window) is built again when a step needs it, and nothing is
 * lost, since the file itself is kept by the run.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { quotedName } from '../shared/file-names.ts';
import { storageErrorText } from '../shared/storage-error.ts';
import { buildPassageIndex, loadPassageIndex, type PassageSearch } from './passage-index.ts';
import {
  PASSAGES_VERSION,
  type Passage,
  passagesUnavailable,
  type ReadableAttachment,
  splitPassages,
} from './passages.ts';
import type { Attachment } from './types.ts';

export const PASSAGES_DB = 'baton-passages';

interface StoredIndex {
  /** The file's content hash. */
  id: string;
  version: number;
  passages: Passage[];
  /** MiniSearch's own JSON of the index. */
  index: string;
}

interface PassagesDB extends DBSchema {
  indexes: { key: string; value: StoredIndex };
}

export interface IndexedFile {
  passages: Passage[];
  search: PassageSearch;
}

export interface PassageLibrary {
  /** The file's passages and index: from memory, from storage, or built now (and stored if it can be). */
  indexFor(attachment: Attachment): Promise<IndexedFile>;
  /** Why the last index could not be stored, in words, when it could not (it is rebuilt when needed). */
  readonly storeProblem?: string;
}

/** Files kept in memory, the most recently used: a run's files, not every file ever attached. */
const IN_MEMORY = 8;

/**
 * A library over `open` (the database; absent: memory only). Each file is indexed once however many
 * steps ask at the same time.
 */
export function createPassageLibrary(
  open: (() => Promise<IDBPDatabase<PassagesDB>>) | undefined = () => openPassagesDb(),
): PassageLibrary {
  const memory = new Map<string, Promise<IndexedFile>>();
  let db: Promise<IDBPDatabase<PassagesDB> | undefined> | undefined;
  const database = () => {
    db ??= open
      ? Promise.resolve()
          .then(open)
          .catch(() => undefined)
      : Promise.resolve(undefined);
    return db;
  };
  const library: { storeProblem?: string } & PassageLibrary = {
    indexFor(attachment) {
      const unavailable = passagesUnavailable(attachment);
      if (unavailable) return Promise.reject(unavailable);
      const kept = memory.get(attachment.id);
      if (kept) {
        memory.delete(attachment.id);
        memory.set(attachment.id, kept);
        return kept;
      }
      const made = load(attachment as ReadableAttachment);
      memory.set(attachment.id, made);
      made.catch(() => memory.delete(attachment.id));
      while (memory.size > IN_MEMORY) memory.delete(memory.keys().next().value as string);
      return made;
    },
  };

  async function load(attachment: ReadableAttachment): Promise<IndexedFile> {
    const store = await database();
    const stored = await store?.get('indexes', attachment.id).catch(() => undefined);
    if (stored && stored.version === PASSAGES_VERSION) {
      try {
        return { passages: stored.passages, search: await loadPassageIndex(stored.index) };
      } catch {
        // A damaged record is built again below, and written over.
      }
    }
    const passages = splitPassages(attachment);
    const search = await buildPassageIndex(passages);
    if (store) {
      const record: StoredIndex = {
        id: attachment.id,
        version: PASSAGES_VERSION,
        passages,
        index: JSON.stringify(search),
      };
      try {
        await store.put('indexes', record);
        delete library.storeProblem;
      } catch (error) {
        library.storeProblem = `The index of ${quotedName(attachment.name)} was not saved (${storageErrorText(error)}): it is built again when needed.`;
      }
    }
    return { passages, search };
  }
  return library;
}

export function openPassagesDb(name = PASSAGES_DB): Promise<IDBPDatabase<PassagesDB>> {
  return openDB<PassagesDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('indexes', { keyPath: 'id' });
    },
    // Another tab wants to upgrade or delete it: step aside; the next file opens it again.
    blocking() {},
  });
}
