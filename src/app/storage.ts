import { signal } from '@preact/signals';

export interface StorageStatus {
  /** navigator.storage.persisted(); undefined when the browser has no Storage API. */
  persisted?: boolean;
  /** True once we asked navigator.storage.persist() in this session. */
  asked: boolean;
  usageBytes?: number;
  quotaBytes?: number;
  /** Of `usageBytes`, the files attached to stored runs (each once). */
  attachmentBytes?: number;
}

export interface StorageServices {
  /** The browser's storage manager (navigator.storage when left out); undefined where there is none. */
  storageManager?(): StorageManager | undefined;
  /** Bytes of the files stored with runs (the run store's count); left out, none are counted. */
  attachmentBytes?(): Promise<number>;
}

/** The storage status for one app state (Settings and the start screen read it) and the two actions on it. */
export function createStorage(services: StorageServices) {
  const storageStatus = signal<StorageStatus>({ asked: false });
  const manager = services.storageManager ?? (() => globalThis.navigator?.storage);

  /** Reads persisted() and estimate() without asking the user anything. */
  async function refreshStorage(): Promise<StorageStatus> {
    const storage = manager();
    const next: StorageStatus = { ...storageStatus.value };
    if (storage?.persisted) next.persisted = await storage.persisted().catch(() => undefined);
    if (storage?.estimate) {
      const estimate = await storage.estimate().catch(() => undefined);
      if (estimate?.usage !== undefined) next.usageBytes = estimate.usage;
      if (estimate?.quota !== undefined) next.quotaBytes = estimate.quota;
    }
    const files = await services.attachmentBytes?.().catch(() => undefined);
    if (files !== undefined) next.attachmentBytes = files;
    storageStatus.value = next;
    return next;
  }

  /**
   * Asks for persistent storage, so the browser does not evict the cached model under storage pressure.
   * Chromium grants or denies silently (by engagement); Firefox shows a prompt.
   */
  async function requestPersistence(): Promise<boolean | undefined> {
    const storage = manager();
    if (!storage?.persist) return undefined;
    const granted = await storage.persist().catch(() => false);
    storageStatus.value = { ...storageStatus.value, asked: true, persisted: granted };
    await refreshStorage();
    return granted;
  }

  return { storageStatus, refreshStorage, requestPersistence };
}

export type AppStorage = ReturnType<typeof createStorage>;
