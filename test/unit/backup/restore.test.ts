/**
 * A restore cut off part way leaves whole records and goes on where it stopped when run again; provider
 * keys travel only when the user includes them.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { backUp } from '../../../src/backup/backup.ts';
import { openProfile } from '../../../src/backup/profile.ts';
import { restore } from '../../../src/backup/restore.ts';
import { openSyncState } from '../../../src/backup/sync-state.ts';
import { singleFileTarget } from '../../../src/backup/targets/single-file.ts';
import type { BackupTarget } from '../../../src/backup/targets/target.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { dumpProfile, namesFor, plain, seedProfile } from './seed.ts';

const PASSPHRASE = 'a passphrase for the restore tests';
const KEY = 'sk-restore-test-0123456789abcdef';

describe('restore', () => {
  it('cut off part way, runs again to the end: every record whole, as backed up', async () => {
    const names = namesFor('a');
    const target = singleFileTarget();
    const backUpNow = async (state: Awaited<ReturnType<typeof openSyncState>>) => {
      const opened = await openProfile(names);
      await backUp({ target, state, profile: opened, passphrase: PASSPHRASE });
      opened.close();
    };
    // Two backups, two packs: the restore can be cut between them.
    const writer = await openSyncState('a-backup');
    await seedProfile(names, 'alpha');
    await backUpNow(writer);
    await seedProfile(names, 'beta', 5_000);
    await backUpNow(writer);
    const before = await plain(await dumpProfile(names));
    const bytes = target.toBytes();

    globalThis.indexedDB = new IDBFactory();
    const state = await openSyncState('a-backup');
    const file = singleFileTarget(bytes);
    let packs = 0;
    const cut: BackupTarget = {
      ...file,
      async get(name) {
        if (name.startsWith('o') && ++packs > 1) throw new Error('connection lost');
        return file.get(name);
      },
    };
    const profile = await openProfile(names);
    const first = await restore({ target: cut, state, profile, passphrase: PASSPHRASE }).catch(
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(Error);
    const again = await restore({ target: file, state, profile, passphrase: PASSPHRASE });
    profile.close();
    expect(again.problems).toEqual([]);
    expect(await plain(await dumpProfile(names))).toEqual(before);
  });

  it('carries provider keys only when the user includes them', async () => {
    const names = namesFor('k');
    await seedProfile(names, 'kilo');
    const vault = await openVault('k-vault');
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: KEY });
    const backUpWith = async (includeKeys: boolean) => {
      const target = singleFileTarget();
      const profile = await openProfile({ ...names, vault, includeKeys });
      await backUp({
        target,
        state: await openSyncState(`k-backup-${includeKeys}`),
        profile,
        passphrase: PASSPHRASE,
      });
      profile.close();
      return target.toBytes();
    };
    const without = await backUpWith(false);
    const withKeys = await backUpWith(true);
    expect(new TextDecoder().decode(withKeys)).not.toContain(KEY);

    const restoredKeys = async (bytes: Uint8Array) => {
      globalThis.indexedDB = new IDBFactory();
      const fresh = await openVault('k-vault');
      const profile = await openProfile({ ...names, vault: fresh });
      await restore({
        target: singleFileTarget(bytes),
        state: await openSyncState('k-backup'),
        profile,
        passphrase: PASSPHRASE,
      });
      profile.close();
      return Promise.all((await fresh.listKeys()).map((k) => fresh.keyFor(k.providerId, k.origin)));
    };
    expect(await restoredKeys(without)).toEqual([]);
    expect(await restoredKeys(withKeys)).toEqual([KEY]);
  });

  it('a record that cannot be written here (a key while the vault is locked) is named; the rest is restored', async () => {
    const names = namesFor('l');
    await seedProfile(names, 'lima');
    const vault = await openVault('l-vault');
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: KEY });
    const target = singleFileTarget();
    let profile = await openProfile({ ...names, vault, includeKeys: true });
    await backUp({ target, state: await openSyncState('l-backup'), profile, passphrase: PASSPHRASE });
    profile.close();

    globalThis.indexedDB = new IDBFactory();
    const locked = await openVault('l-vault');
    await locked.setPassphrase('the vault passphrase');
    locked.lock();
    profile = await openProfile({ ...names, vault: locked });
    const result = await restore({
      target: singleFileTarget(target.toBytes()),
      state: await openSyncState('l-backup'),
      profile,
      passphrase: PASSPHRASE,
    });
    profile.close();
    expect(result.problems).toEqual([
      expect.stringMatching(
        /^key openai@https:\/\/api\.openai\.com could not be written here \(.*\): it was not restored\.$/,
      ),
    ]);
    expect(result.restored).toBe(9);
  });
});
