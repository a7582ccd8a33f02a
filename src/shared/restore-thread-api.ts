/**
 * The restore's thread (workers/restore.worker.ts) as the page calls it (comlink): src/backup/restore-thread.ts
 * says why it exists. `start` opens the profile's databases there, with only the key that opens objects.
 */
import type { RecordEntry, Written } from './pack-reader.ts';
import type { ProfileDatabases } from './profile-write.ts';

export interface RestoreThreadApi {
  start(keys: { seal: CryptoKey }, databases: ProfileDatabases): Promise<void>;
  open(name: string, sealed: Uint8Array<ArrayBuffer>): Promise<string | undefined>;
  write(entry: RecordEntry): Promise<Written>;
  release(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Kinds the thread gives back to the page to write: settings live in its localStorage, keys in its vault. */
export const PAGE_KINDS: ReadonlySet<string> = new Set(['settings', 'key']);
