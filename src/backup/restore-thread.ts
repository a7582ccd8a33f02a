/**
 * The restore's own thread (workers/restore.worker.ts): the page fetches each pack through egress (so
 * every request is in the ledger, purpose "backup") and hands its sealed bytes over (transferred); the
 * thread opens, decodes and writes the records into the same databases, and says per record what became
 * of it. The page's main thread so allocates none of a pack's plaintext nor the records built from it:
 * when it did, V8 collected that garbage in pauses inside its tasks, making tasks of 55-61 ms (bench
 * p29-restore-main-thread; the goal is no task over 50 ms while restoring).
 */
import { type Remote, releaseProxy, transfer, wrap } from 'comlink';
import { type PackReader, type Written, writeHere } from '../shared/pack-reader.ts';
import type { ProfileDatabases, RecordWriter } from '../shared/profile-write.ts';
import type { RestoreThreadApi } from '../shared/restore-thread-api.ts';
import { BackupError } from './format.ts';
import type { BackupKeys } from './keys.ts';

/** A failure of the thread, said as the restore's: what was written stays, and a restore again goes on. */
function stopped(detail: string): BackupError {
  return new BackupError(
    'failed',
    `The restore stopped: its thread (restore worker) failed (${detail.slice(0, 200)}). What it wrote is kept; restore again to go on.`,
  );
}

/** Starts the thread over `profile`'s databases; rejects, by name, when it cannot start. */
export async function threadReader(
  keys: BackupKeys,
  databases: ProfileDatabases,
  profile: RecordWriter,
): Promise<PackReader> {
  const worker = new Worker(new URL('../../workers/restore.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-restore',
  });
  const died = new Promise<never>((_, reject) => {
    worker.addEventListener(
      'error',
      (event) => reject(stopped((event as ErrorEvent).message || 'its script did not load or it crashed')),
      { once: true },
    );
  });
  died.catch(() => {});
  const api: Remote<RestoreThreadApi> = wrap<RestoreThreadApi>(worker);
  const call = async <T>(pending: Promise<T>): Promise<T> => {
    try {
      return await Promise.race([pending, died]);
    } catch (error) {
      if (error instanceof BackupError) throw error;
      throw stopped(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  };
  const end = () => {
    api[releaseProxy]();
    worker.terminate();
  };
  try {
    // Only the key that opens objects: the one that names them stays on the page.
    await call(api.start({ seal: keys.seal }, databases));
  } catch (error) {
    end();
    throw error;
  }
  return {
    open: (name, sealed) => call(api.open(name, transfer(sealed, [sealed.buffer]))),
    async write(entry) {
      const written: Written = await call<Written>(api.write(entry));
      return 'body' in written ? writeHere(profile, entry.k, written.body) : written;
    },
    release: (name) => call(api.release(name)),
    async close() {
      try {
        await call(api.close());
      } finally {
        end();
      }
    },
  };
}
