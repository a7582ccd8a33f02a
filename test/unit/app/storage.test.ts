import { describe, expect, it } from 'vitest';
import { createStorage } from '../../../src/app/storage.ts';

/** A browser's storage manager in the shape the page reads (persist, persisted, estimate). */
function storageManager(usage: number, grants: boolean): StorageManager {
  let persisted = false;
  return {
    persisted: async () => persisted,
    persist: async () => {
      persisted = grants;
      return grants;
    },
    estimate: async () => ({ usage, quota: 1000 }),
  } as StorageManager;
}

describe('createStorage', () => {
  it('two app states keep their own storage status: asking in one does not change the other', async () => {
    const managerA = storageManager(10, true);
    const managerB = storageManager(20, false);
    const a = createStorage({ storageManager: () => managerA });
    const b = createStorage({ storageManager: () => managerB });

    expect(await a.requestPersistence()).toBe(true);
    await b.refreshStorage();

    expect(a.storageStatus.value).toEqual({ asked: true, persisted: true, usageBytes: 10, quotaBytes: 1000 });
    expect(b.storageStatus.value).toEqual({
      asked: false,
      persisted: false,
      usageBytes: 20,
      quotaBytes: 1000,
    });
  });

  it('without a Storage API, persistence is unknown rather than refused', async () => {
    const storage = createStorage({ storageManager: () => undefined });
    expect(await storage.requestPersistence()).toBeUndefined();
    expect(await storage.refreshStorage()).toEqual({ asked: false });
  });

  it('counts the files stored with runs apart, as the run store reports them', async () => {
    const storage = createStorage({
      storageManager: () => storageManager(5000, false),
      attachmentBytes: async () => 1234,
    });
    expect(await storage.refreshStorage()).toMatchObject({ usageBytes: 5000, attachmentBytes: 1234 });
  });
});
