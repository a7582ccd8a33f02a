/**
 * Harness for the restore bench (bench/backup.bench.ts, p29): the real restore (src/backup/) into this
 * page's own IndexedDB, from a bucket on 127.0.0.1 through egress (its fetch thread) and its ledger, as
 * Settings → Backups runs it, while the page's main thread is watched (Long Tasks API).
 */
import { openProfile } from '../../src/backup/profile.ts';
import { restore } from '../../src/backup/restore.ts';
import { openSyncState } from '../../src/backup/sync-state.ts';
import { s3Target } from '../../src/backup/targets/s3.ts';
import { BACKUP_S3 } from '../../src/egress/backup-endpoints.ts';
import { createEgress } from '../../src/egress/egress.ts';
import { fetchThread } from '../../src/egress/fetch-thread.ts';
import { openLedger } from '../../src/egress/ledger.ts';
import { openVault } from '../../src/vault/vault.ts';

export interface RestoreReport {
  ms: number;
  restored: number;
  problems: string[];
  /** The keys of this page's records after the restore (what its databases now hold). */
  here: string[];
  /** Durations of the Long Tasks (over 50 ms) the main thread ran during the restore. */
  longTasks: number[];
}

async function restoreFrom(bucket: { url: string; key: string; passphrase: string }): Promise<RestoreReport> {
  const vault = await openVault();
  await vault.saveKey({ providerId: BACKUP_S3, origin: bucket.url, key: bucket.key });
  const egress = createEgress({ vault, ledger: await openLedger(), fetchImpl: fetchThread() });
  const target = s3Target({ endpoint: bucket.url, bucket: 'baton', region: 'us-east-1' }, egress);
  const state = await openSyncState();
  const profile = await openProfile({ storage: localStorage });
  const longTasks: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push(entry.duration);
  });
  observer.observe({ type: 'longtask' });
  const t = performance.now();
  try {
    const result = await restore({ target, state, profile, passphrase: bucket.passphrase });
    const ms = performance.now() - t;
    // Entries of the last task are delivered after it: one more task lets them arrive.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const here = (await profile.list()).map((unit) => unit.key);
    return { ms, restored: result.restored, problems: result.problems, here, longTasks };
  } finally {
    observer.disconnect();
    profile.close();
    state.close();
  }
}

/** The keys of the records this page's databases hold. */
async function recordsHere(): Promise<string[]> {
  const profile = await openProfile({ storage: localStorage });
  try {
    return (await profile.list()).map((unit) => unit.key);
  } finally {
    profile.close();
  }
}

(globalThis as { __backup?: unknown }).__backup = { restoreFrom, recordsHere };
document.body.dataset.ready = 'true';
