import { effect, signal } from '@preact/signals';

export type ThemeChoice = 'light' | 'dark' | 'system';

const STORAGE_KEY = 'baton.theme';

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return value === 'light' || value === 'dark' || value === 'system';
}

function readStored(): ThemeChoice {
  try {
    const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
    return isThemeChoice(stored) ? stored : 'system';
  } catch {
    // Storage can be disabled (privacy settings): the theme then simply follows the system.
    return 'system';
  }
}

/** The user's choice; `system` follows prefers-color-scheme through CSS. */
export const theme = signal<ThemeChoice>(readStored());

/** Applies the choice to <html data-theme> and keeps it in localStorage. Call once at start-up. */
export function startTheme(root: HTMLElement = document.documentElement): () => void {
  return effect(() => {
    const choice = theme.value;
    root.dataset.theme = choice;
    try {
      globalThis.localStorage?.setItem(STORAGE_KEY, choice);
    } catch {
      // Not persisted: harmless.
    }
  });
}

/** The theme actually shown, resolving `system` against the media query. */
export function resolvedTheme(choice: ThemeChoice = theme.value): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
