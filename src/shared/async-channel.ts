/**
 * A push → AsyncIterable channel for one consumer: the producer pushes items as they arrive and closes
 * it; the consumer reads them in order with `for await`, waiting when it is ahead. Items pushed after
 * `close()`, or after the consumer stopped reading (`break`, `return()`), are dropped.
 */
export interface Channel<T> extends AsyncIterable<T> {
  push(item: T): void;
  close(): void;
  /** True once closed by the producer or left by the consumer. */
  readonly closed: boolean;
}

export function createChannel<T>(): Channel<T> {
  const items: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    get closed() {
      return closed;
    },
    push(item) {
      if (closed) return;
      items.push(item);
      signal();
    },
    close() {
      closed = true;
      signal();
    },
    [Symbol.asyncIterator](): AsyncIterator<T> {
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (items.length > 0) return { done: false, value: items.shift() as T };
            if (closed) return { done: true, value: undefined };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<T>> {
          closed = true;
          items.length = 0;
          signal();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
