/**
 * Settings → Backups' bad input, as the app says it: an address that is not a URL, a locked vault, a
 * place nothing answers at. Nothing is saved or sent when any of these stops it.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createBackups } from '../../../src/app/backups.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { runWithFiles } from '../../fixtures/attachments.ts';
import { startS3 } from '../backup/servers.ts';

/** A page's backups over its own vault and ledger (databases named for the test). */
async function app(name = 'backups') {
  const vault = await openVault(`${name}-vault`);
  const ledger = await openLedger(`${name}-ledger`);
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

  it('backs up by itself after a run ends, once set up, sending only that run', async () => {
    const server = await startS3();
    try {
      const { backups, ledger } = await app('after-run');
      await backups.load();
      await backups.saveS3({ ...BUCKET, endpoint: server.url, accessKeyId: 'S3RVER', secret: 'S3RVER' });
      await backups.backUpNow('a backup passphrase');
      expect(backups.problem.value).toBeUndefined();
      const first = backups.status.value.lastBackupAt ?? 0;
      const puts = async () => (await ledger.list()).filter((e) => e.method === 'PUT').length;
      const before = await puts();

      const runs = await openRunStore();
      await runs.putRun(runWithFiles('after-run', [], { question: 'after?', updatedAt: 2_000 }));
      runs.close();
      backups.runEnded();
      await expect.poll(() => backups.status.value.holds?.run, { timeout: 10_000 }).toBe(1);
      expect(backups.status.value.lastBackupAt).toBeGreaterThanOrEqual(first);
      // The run's pack, a segment of the index, the device's head.
      expect((await puts()) - before).toBe(3);
    } finally {
      await server.close();
    }
  });
});
