import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { AppState } from '../app/app-state.ts';

/** The app's state, provided once at the root (src/main.ts); tests render with their own. */
export const AppStateContext = createContext<AppState | undefined>(undefined);

/** The app's state and actions, for a component under the provider. */
export function useAppState(): AppState {
  const state = useContext(AppStateContext);
  if (!state) throw new Error('useAppState needs an <AppStateContext.Provider> above it (see src/main.ts).');
  return state;
}
