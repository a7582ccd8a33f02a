/**
 * One backup or restore at a time across this browser's tabs: the Web Locks API where the browser has
 * it, else one at a time within this page.
 */
import { BackupError } from './format.ts';

const LOCK = 'baton-backup';

let chain: Promise<unknown> = Promise.resolve();

interface Locks {
  request<T>(
    name: string,
    options: { ifAvailable: boolean },
    work: (lock: unknown) => Promise<T>,
  ): Promise<T>;
}

/**
 * Runs `work` holding the backup lock. `wait: false` (a scheduled backup): when another tab holds it,
 * refuses at once with a `busy` error instead of waiting its turn.
 */
export function withBackupLock<T>(work: () => Promise<T>, wait = true): Promise<T> {
  const locks = (globalThis.navigator as { locks?: Locks } | undefined)?.locks;
  if (locks) {
    return locks.request(LOCK, { ifAvailable: !wait }, async (lock) => {
      if (lock === null) {
        throw new BackupError(
          'busy',
          'Another Baton tab is backing up or restoring: this one waits for the next time.',
        );
      }
      return work();
    });
  }
  const run = chain.then(work, work);
  chain = run.catch(() => undefined);
  return run;
}
