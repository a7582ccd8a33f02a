/** Why a run or a step stops before its end, carried as the abort reason of its controller. */
export type StopCause =
  | 'cancel-step'
  | 'cancel-run'
  | 'plan-error'
  | 'spend-limit'
  | 'step-timeout'
  | 'abandon';

/** Why a step stopped by a cancel ends `cancelled`, as its error says. */
export const CANCEL_REASON = {
  'cancel-step': 'Cancelled.',
  'cancel-run': 'Not finished: you stopped the run.',
  'plan-error': 'The plan could not be read.',
  'spend-limit': 'Not finished: the run stopped at its spend limit.',
} as const;
export type CancelCause = keyof typeof CANCEL_REASON;

export class StopSignal extends Error {
  override name = 'StopSignal';
  constructor(readonly why: StopCause) {
    super(why);
  }
}

/** Settles like `promise`, or rejects with the signal's reason the moment it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The iterator's next item, or the signal's reason the moment it aborts (no `next()` once it has). */
export function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return raceAbort(iterator.next(), signal);
}

/** Tells a source we stopped reading; a source that fails while closing has nothing left to say. */
export function closeQuietly(iterator: AsyncIterator<unknown>): void {
  void iterator.return?.()?.catch(() => {});
}
