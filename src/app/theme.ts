import { effect, signal } from '@preact/signals';
import { storedValue } from './local-store.ts';

export type ThemeChoice = 'light' | 'dark' | 'system';

const STORAGE_KEY = 'baton.theme';

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return value === 'light' || value === 'dark' || value === 'system';
}

/** The theme choice for one app state, read from localStorage when the app state is built. */
export function createTheme() {
  // Without storage the theme simply follows the system.
  const stored = storedValue<ThemeChoice>(
    STORAGE_KEY,
    (raw) => (isThemeChoice(raw) ? raw : 'system'),
    String,
  );

  /** The user's choice; `system` follows prefers-color-scheme through CSS. */
  const theme = signal<ThemeChoice>(stored.read());

  /** Applies the choice to <html data-theme> and keeps it in localStorage. Call once at start-up. */
  function startTheme(root: HTMLElement = document.documentElement): () => void {
    return effect(() => {
      const choice = theme.value;
      root.dataset.theme = choice;
      stored.write(choice);
    });
  }

  return { theme, startTheme };
}

export type AppTheme = ReturnType<typeof createTheme>;
