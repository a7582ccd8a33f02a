/**
 * One value kept in localStorage under `key`. Storage can be missing or refuse (privacy settings, a full
 * quota): reading then gives what `parse` makes of nothing, and a write that fails is dropped, because
 * every value kept here is a convenience the user can set again.
 */
export interface StoredValue<T> {
  read(): T;
  write(value: T): void;
}

export function storedValue<T>(
  key: string,
  parse: (raw: string | null) => T,
  serialize: (value: T) => string = JSON.stringify,
): StoredValue<T> {
  return {
    read() {
      let raw: string | null = null;
      try {
        raw = globalThis.localStorage?.getItem(key) ?? null;
      } catch {
        // Unreadable storage reads as empty.
      }
      return parse(raw);
    },
    write(value) {
      try {
        globalThis.localStorage?.setItem(key, serialize(value));
      } catch {
        // Not remembered across visits: harmless (see above).
      }
    },
  };
}

/** A JSON value, or undefined when nothing (or not JSON) is stored. */
export function parseJson(raw: string | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
