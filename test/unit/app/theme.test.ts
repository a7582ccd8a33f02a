import { afterEach, describe, expect, it } from 'vitest';
import { createTheme } from '../../../src/app/theme.ts';

const global = globalThis as { localStorage?: Pick<Storage, 'getItem' | 'setItem'> };
const original = global.localStorage;
afterEach(() => {
  global.localStorage = original;
});

describe('createTheme', () => {
  it('two app states keep their own choice, each read from what was stored when it was built', () => {
    const items = new Map<string, string>([['baton.theme', 'dark']]);
    global.localStorage = {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => void items.set(key, value),
    };
    const a = createTheme();
    const b = createTheme();
    expect(a.theme.value).toBe('dark');

    a.theme.value = 'light';
    expect(b.theme.value).toBe('dark');

    // Applying a choice marks the page's root and keeps it for the next visit.
    const root = { dataset: {} } as HTMLElement;
    const stop = a.startTheme(root);
    expect(root.dataset.theme).toBe('light');
    expect(items.get('baton.theme')).toBe('light');
    stop();
    expect(createTheme().theme.value).toBe('light');
  });
});
