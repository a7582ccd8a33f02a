import type { ReadonlySignal } from '@preact/signals';

/**
 * Resolves with a signal's value once `ready` holds of it: a wait on the app's own state, not on a clock.
 * `expect.poll` gives up after one second of real time, which a loaded machine (the whole suite on two
 * shared cores) can take just to import a run's modules the first time; the test's own timeout still
 * bounds a wait for what never comes.
 */
export function until<T>(source: ReadonlySignal<T>, ready: (value: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    let found = false;
    let subscribed = false;
    // subscribe() calls back at once with the current value, before it has returned `stop`.
    const stop = source.subscribe((value) => {
      if (found || !ready(value)) return;
      found = true;
      resolve(value);
      if (subscribed) stop();
    });
    subscribed = true;
    if (found) stop();
  });
}
