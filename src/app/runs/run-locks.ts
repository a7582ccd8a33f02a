// One run is run by one tab. A Web Lock per run id is held for as long as a tab runs it; another tab sees
// the lock as taken and shows the run as running there instead of offering to resume it (which would send
// every unfinished step again and pay twice). Locks are released by the browser when a tab closes or
// crashes, so a run left behind is offered again at once.

const PREFIX = 'baton-run:';
const lockName = (runId: string) => `${PREFIX}${runId}`;

/** Runs this tab holds: `navigator.locks.query()` lists every tab's locks, this tab's included. */
const ours = new Set<string>();

function locks(): LockManager | undefined {
  return typeof navigator !== 'undefined' ? navigator.locks : undefined;
}

/**
 * Takes the run's lock if no tab holds it, calls `start`, and keeps the lock until the run it started ends.
 * Resolves to `start`'s handle, or undefined (without calling `start`) when another tab holds the lock.
 */
export function runExclusively<T extends { result: Promise<unknown> }>(
  runId: string,
  start: () => Promise<T>,
): Promise<T | undefined> {
  const manager = locks();
  if (!manager) return start(); // no Web Locks (an old browser): one tab cannot see another's runs
  return new Promise<T | undefined>((resolve, reject) => {
    manager
      .request(lockName(runId), { ifAvailable: true }, async (lock) => {
        if (!lock) return resolve(undefined);
        ours.add(runId);
        try {
          const handle = await start();
          resolve(handle);
          await handle.result.catch(() => undefined);
        } catch (error) {
          reject(error);
        } finally {
          ours.delete(runId);
        }
      })
      .catch(reject);
  });
}

/** Holds the lock of a run this tab has just started (its id is new, so no other tab can hold it). */
export function holdWhileRunning(runId: string, result: Promise<unknown>): void {
  const manager = locks();
  if (!manager || ours.has(runId)) return;
  ours.add(runId);
  void manager
    .request(lockName(runId), () => result.catch(() => undefined))
    .finally(() => ours.delete(runId));
}

/** Of `runIds`, those another tab is running now. */
export async function runningElsewhere(runIds: readonly string[]): Promise<Set<string>> {
  const manager = locks();
  if (!manager || runIds.length === 0) return new Set();
  const { held = [] } = await manager.query();
  const names = new Set(held.map((lock) => lock.name));
  return new Set(runIds.filter((id) => !ours.has(id) && names.has(lockName(id))));
}

/** Calls `then` once no tab holds the run's lock (at once if none does). */
export function whenReleased(runId: string, then: () => void): void {
  const manager = locks();
  if (!manager) return;
  // Taking the lock (and giving it back at once) is how a tab waits for another tab's run to end.
  void manager.request(lockName(runId), () => undefined).then(then, () => undefined);
}
