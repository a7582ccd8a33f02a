/**
 * Browsers for the backup tests, each a profile of its own in fake-indexeddb (its vault, ledger, egress and
 * the backup's own state, by database names of its own), and the places they back up to on the test
 * servers (servers.ts).
 */
import { IDBFactory } from 'fake-indexeddb';
import { backUp } from '../../../src/backup/backup.ts';
import type { CollectOptions } from '../../../src/backup/collect.ts';
import { openProfile } from '../../../src/backup/profile.ts';
import { restore } from '../../../src/backup/restore.ts';
import { openSyncState } from '../../../src/backup/sync-state.ts';
import { s3Target } from '../../../src/backup/targets/s3.ts';
import type { BackupTarget } from '../../../src/backup/targets/target.ts';
import { webDavTarget } from '../../../src/backup/targets/webdav.ts';
import { BACKUP_S3, BACKUP_WEBDAV } from '../../../src/egress/backup-endpoints.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { type Ledger, openLedger } from '../../../src/egress/ledger.ts';
import { openVault, type Vault } from '../../../src/vault/vault.ts';
import { namesFor } from './seed.ts';
import { DAV_PASSWORD, DAV_USER, S3_KEY, type TestServer } from './servers.ts';

export async function browser(profile: string) {
  const vault: Vault = await openVault(`${profile}-vault`);
  const ledger: Ledger = await openLedger(`${profile}-ledger`);
  const egress = createEgress({ vault, ledger, fetchImpl: fetch });
  const state = await openSyncState(`${profile}-backup`);
  const names = namesFor(profile);
  const open = () => openProfile(names);
  return { vault, ledger, egress, state, names, open };
}

export type Browser = Awaited<ReturnType<typeof browser>>;

export async function s3(b: Browser, server: TestServer, key = S3_KEY): Promise<BackupTarget> {
  await b.vault.saveKey({ providerId: BACKUP_S3, origin: server.url, key });
  return s3Target({ endpoint: server.url, bucket: 'baton', region: 'us-east-1' }, b.egress);
}

export async function dav(b: Browser, server: TestServer): Promise<BackupTarget> {
  await b.vault.saveKey({
    providerId: BACKUP_WEBDAV,
    origin: server.url,
    key: `${DAV_USER}:${DAV_PASSWORD}`,
  });
  return webDavTarget({ url: `${server.url}/baton/` }, b.egress);
}

export async function backUpWith(
  b: Browser,
  target: BackupTarget,
  passphrase?: string,
  collect?: CollectOptions,
) {
  const profile = await b.open();
  try {
    return await backUp({
      target,
      state: b.state,
      profile,
      ...(passphrase ? { passphrase } : {}),
      ...(collect ? { collect } : {}),
    });
  } finally {
    profile.close();
  }
}

export async function restoreWith(b: Browser, target: BackupTarget, passphrase?: string) {
  const profile = await b.open();
  try {
    return await restore({ target, state: b.state, profile, ...(passphrase ? { passphrase } : {}) });
  } finally {
    profile.close();
  }
}

/** A new browser: every database gone (the vault, the ledger and the backup's own state with them). */
export function wipe(): void {
  globalThis.indexedDB = new IDBFactory();
}
