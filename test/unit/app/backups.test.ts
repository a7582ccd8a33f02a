/**
 * Settings → Backups' bad input, as the app says it: an address that is not a URL, a locked vault, a
 * place nothing answers at. Nothing is saved or sent when any of these stops it.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createBackups } from '../../../src/app/backups.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { openVault } from '../../../src/vault/vault.ts';

async function app() {
  const vault = await openVault('backups-vault');
  const ledger = await openLedger('backups-ledger');
  const egress = createEgress({ vault, ledger, fetchImpl: fetch });
  return { backups: createBackups({ vault: async () => vault, egress: async () => egress }), vault, ledger };
}

const BUCKET = {
  endpoint: 'http://127.0.0.1:9',
  bucket: 'baton',
  region: 'us-east-1',
  prefix: '',
  accessKeyId: 'id',
  secret: 'secret',
};

describe('Settings → Backups', () => {
  it('says an address is not a URL, and saves nothing', async () => {
    const { backups, vault } = await app();
    await backups.load();
    expect(await backups.saveS3({ ...BUCKET, endpoint: 'my bucket' })).toBe(false);
    expect(backups.problem.value?.message).toMatch(/not a valid URL/);
    expect(backups.config.value?.target).toBeUndefined();
    expect(await vault.listKeys()).toEqual([]);
  });

  it('asks for the vault to be unlocked, and names a place that cannot be reached', async () => {
    const { backups, vault, ledger } = await app();
    await backups.load();
    expect(await backups.saveS3(BUCKET)).toBe(true);
    expect(backups.config.value?.target).toMatchObject({ kind: 's3', bucket: 'baton' });
    await vault.setPassphrase('vault passphrase 1');
    vault.lock();
    await backups.backUpNow('a backup passphrase');
    expect(backups.problem.value?.message).toMatch(/Unlock the vault/);
    await vault.unlock('vault passphrase 1');
    // Nothing listens at port 9: the place is named as unreachable, in the ledger as a backup's request
    // (and the probe that told why).
    await backups.backUpNow('a backup passphrase');
    expect(backups.problem.value?.message).toMatch(/^bucket baton at 127\.0\.0\.1:9 could not be reached/);
    const rows = await ledger.list();
    expect(rows.map((e) => [e.purpose, e.providerId])).toEqual([
      ['backup', 'backup-s3'],
      ['probe', 'backup-s3'],
    ]);
  });
});
