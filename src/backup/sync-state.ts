/**
 * What this browser keeps of its backups, in its own database ('baton-backup'): where they go and when,
 * this device's random id, the keys the passphrase gave (non-extractable CryptoKeys: they can seal and
 * name objects in this browser only, and open nothing the plaintext records beside them do not already
 * show), this device's manifest as last written, what it last agreed with the backup (the base a change
 * on both sides is told by), the last backup's and restore's outcome, and which objects no index named
 * when it last looked (collect.ts).
 */
import { type IDBPDatabase, openDB } from 'idb';
import type { ManifestEntry } from './format.ts';
import type { BackupKeys } from './keys.ts';
import type { FolderHandle } from './targets/folder.ts';

export const BACKUP_DB = 'baton-backup';

export type TargetConfig =
  | { kind: 's3'; endpoint: string; bucket: string; region?: string; prefix?: string }
  | { kind: 'webdav'; url: string }
  | { kind: 'folder'; handle: FolderHandle }
  | { kind: 'file' };

export interface BackupConfig {
  target?: TargetConfig;
  /** Back up after each run that ends. */
  afterRun: boolean;
  /** Minutes between scheduled backups; 0: none. */
  everyMinutes: number;
  /** Provider keys go in the backup (off unless the user turns it on). */
  includeKeys: boolean;
}

export interface BackupStatus {
  lastBackupAt?: number;
  /** What the backup held after it: records by kind, and bytes. */
  holds?: Record<string, number>;
  bytes?: number;
  lastRestoreAt?: number;
  /** The last restore's notes: records changed on both sides, objects that failed their check. */
  notes?: string[];
  lastError?: string;
}

export interface Published {
  /** The head object's name, under the keys it was written with. */
  head: string;
  segments: string[];
  entries: ManifestEntry[];
}

/** The last collection of unnamed objects (collect.ts): when, and since when each object was unnamed. */
export interface Collection {
  at: number;
  unnamed: Record<string, number>;
}

interface StateDB {
  state: { key: string; value: unknown };
}

export interface SyncState {
  config(): Promise<BackupConfig>;
  setConfig(config: BackupConfig): Promise<void>;
  deviceId(): Promise<string>;
  keys(): Promise<{ keys: BackupKeys; salt: string } | undefined>;
  setKeys(value: { keys: BackupKeys; salt: string } | undefined): Promise<void>;
  published(): Promise<Published | undefined>;
  setPublished(value: Published | undefined): Promise<void>;
  synced(): Promise<Map<string, ManifestEntry>>;
  setSynced(value: Map<string, ManifestEntry>): Promise<void>;
  status(): Promise<BackupStatus>;
  setStatus(value: BackupStatus): Promise<void>;
  collection(): Promise<Collection>;
  setCollection(value: Collection | undefined): Promise<void>;
  close(): void;
}

export const DEFAULT_CONFIG: BackupConfig = { afterRun: true, everyMinutes: 0, includeKeys: false };

export async function openSyncState(name = BACKUP_DB): Promise<SyncState> {
  const db: IDBPDatabase<StateDB> = await openDB<StateDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('state');
    },
  });
  const get = <T>(key: string) => db.get('state', key) as Promise<T | undefined>;
  const set = async (key: string, value: unknown) => {
    if (value === undefined) await db.delete('state', key);
    else await db.put('state', value, key);
  };
  return {
    async config() {
      return { ...DEFAULT_CONFIG, ...(await get<BackupConfig>('config')) };
    },
    setConfig: (config) => set('config', config),
    async deviceId() {
      const tx = db.transaction('state', 'readwrite');
      let id = (await tx.store.get('device')) as string | undefined;
      if (!id) {
        id = crypto.randomUUID();
        await tx.store.put(id, 'device');
      }
      await tx.done;
      return id;
    },
    keys: () => get('keys'),
    setKeys: (value) => set('keys', value),
    published: () => get('published'),
    setPublished: (value) => set('published', value),
    async synced() {
      return new Map(((await get<ManifestEntry[]>('synced')) ?? []).map((e) => [e.k, e]));
    },
    setSynced: (value) => set('synced', [...value.values()]),
    async status() {
      return (await get<BackupStatus>('status')) ?? {};
    },
    setStatus: (value) => set('status', value),
    async collection() {
      return (await get<Collection>('collection')) ?? { at: 0, unnamed: {} };
    },
    setCollection: (value) => set('collection', value),
    close() {
      db.close();
    },
  };
}
