import { signal } from '@preact/signals';

/** How a screen's state gets its store: opened by it, or lent by the app state, which keeps it open. */
export interface StoreSource<S extends { close(): void }> {
  /** Opens the store. */
  openStore: () => Promise<S>;
  /** Whether `close` closes the store too (not when the caller lent it). Default true. */
  ownsStore?: boolean;
}

/**
 * The store a screen's state reads, opened once. A store that opens after the screen was left is closed
 * again at once when it is owned, and leaving closes only an owned one: a lent store outlives the screen.
 */
export function screenStore<S extends { close(): void }>(source: StoreSource<S>) {
  const store = signal<S | undefined>(undefined);
  let closed = false;

  /** The store, once open; undefined when the screen was left meanwhile. Throws when it cannot open. */
  async function open(): Promise<S | undefined> {
    const opened = await source.openStore();
    if (closed) {
      if (source.ownsStore !== false) opened.close();
      return undefined;
    }
    store.value = opened;
    return opened;
  }

  function close(): void {
    closed = true;
    if (source.ownsStore !== false) store.value?.close();
  }

  return { store, open, close };
}
