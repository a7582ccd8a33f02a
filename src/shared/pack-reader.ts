/**
 * The heavy half of a restore: a pack's sealed bytes opened (AES-GCM), split into its records, each
 * record checked against the hash its index gives, decoded and written into this browser's databases. It
 * runs in the restore's own thread in a browser (src/backup/restore-thread.ts), so the page's main thread never holds
 * a pack's plaintext or the records built from it; in Node's tests it runs in-process, the same code.
 */
import { contentHash } from './content-hash.ts';
import { kindOf, type RecordWriter } from './profile-write.ts';
import { decodePack, decodeRecord } from './record-bytes.ts';
import { openObject } from './sealed-object.ts';

/** What became of one record, as plain data (it crosses from the restore's thread). */
export type Written =
  | { done: true }
  /** A record of a kind only the page can write (settings in localStorage, a key in the vault): its body. */
  | { body: unknown }
  /** The pack does not hold it, or holds other bytes than the index's hash says. */
  | { failed: 'missing' }
  | { failed: 'unreadable' | 'unwritable' | 'full'; reason: string };

/** A record as the backup's index lists it (src/backup/format.ts, ManifestEntry): key, hash, pack, place. */
export interface RecordEntry {
  k: string;
  h: string;
  o?: string;
  i?: number;
}

export interface PackReader {
  /** Opens a pack, its sealed bytes taken over: undefined when it opened, else why not (in words). */
  open(name: string, sealed: Uint8Array<ArrayBuffer>): Promise<string | undefined>;
  /** Record `entry.i` of the opened pack `entry.o`, written here (or its body given back, see Written). */
  write(entry: RecordEntry): Promise<Written>;
  /** Lets a pack go once every record of it was looked at. */
  release(name: string): Promise<void>;
  close(): Promise<void>;
}

/** The reader over `profile`; records of `pageKinds` are given back rather than written. */
export function packReader(
  keys: { seal: CryptoKey },
  profile: RecordWriter,
  pageKinds: ReadonlySet<string> = new Set(),
): PackReader {
  const packs = new Map<string, Uint8Array[]>();
  return {
    async open(name, sealed) {
      const opened = await openObject(keys, name, sealed);
      if (!opened) return 'failed its authentication check: it was changed or cut short';
      try {
        packs.set(name, decodePack(opened));
        return undefined;
      } catch (error) {
        return `could not be read (${String(error)})`;
      }
    },
    async write(entry) {
      const bytes = packs.get(entry.o ?? '')?.[entry.i ?? -1];
      if (!bytes || (await contentHash(bytes)) !== entry.h) return { failed: 'missing' };
      let body: unknown;
      try {
        body = decodeRecord(bytes);
      } catch (error) {
        return { failed: 'unreadable', reason: String(error) };
      }
      if (pageKinds.has(kindOf(entry.k))) return { body };
      return writeHere(profile, entry.k, body);
    },
    async release(name) {
      packs.delete(name);
    },
    async close() {
      packs.clear();
    },
  };
}

/** One decoded record written into `profile`, its failure as data (a full disk told apart by its name). */
export async function writeHere(profile: RecordWriter, key: string, body: unknown): Promise<Written> {
  try {
    await profile.write(key, body);
    return { done: true };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if ((error as { name?: string }).name === 'QuotaExceededError') return { failed: 'full', reason };
    return { failed: 'unwritable', reason };
  }
}
