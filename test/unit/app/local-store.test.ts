import { afterEach, describe, expect, it } from 'vitest';
import { parseJson, storedValue } from '../../../src/app/local-store.ts';

const global = globalThis as { localStorage?: Pick<Storage, 'getItem' | 'setItem'> };
const original = global.localStorage;
afterEach(() => {
  global.localStorage = original;
});

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  };
}

const count = () => storedValue<number>('n', (raw) => (raw === null ? 0 : Number(raw)), String);

describe('a value kept in localStorage', () => {
  it('writes what it reads back', () => {
    const storage = memoryStorage();
    global.localStorage = storage;
    count().write(3);
    expect(storage.items.get('n')).toBe('3');
    expect(count().read()).toBe(3);
  });

  it('reads as empty and drops writes when storage refuses (privacy settings, a full quota)', () => {
    global.localStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(count().read()).toBe(0);
    expect(() => count().write(4)).not.toThrow();
  });

  it('reads as empty without storage at all', () => {
    global.localStorage = undefined;
    expect(count().read()).toBe(0);
  });

  it('stores JSON by default, and parseJson reads anything else as nothing', () => {
    const storage = memoryStorage();
    global.localStorage = storage;
    storedValue('j', parseJson).write({ a: 1 });
    expect(storedValue('j', parseJson).read()).toEqual({ a: 1 });
    storage.items.set('j', '{broken');
    expect(storedValue('j', parseJson).read()).toBeUndefined();
  });
});
