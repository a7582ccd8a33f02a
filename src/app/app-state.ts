/**
 * The app's state and actions, built from the services they use (preact-www's `createAppState`): the page
 * builds one from the real services (IndexedDB, egress, the conductor thread) and provides it through
 * context (src/ui/app-context.ts); a test builds its own from fake-indexeddb and a scripted conductor.
 */
import type { Vault } from '../vault/vault.ts';
import { getBridge } from './conductor.ts';
import { createHistory } from './history.ts';
import { createPrefs } from './prefs.ts';
import { createRouter } from './router.ts';
import { createRuns, type RunServices } from './runs.ts';
import { getEgress, getLedger, getRunStore, getVault } from './services.ts';
import { createStorage, type StorageServices } from './storage.ts';
import { createTheme } from './theme.ts';
import { createVaultUnlock } from './vault-unlock.ts';

export interface AppServices
  extends Omit<RunServices, 'historyChanged' | 'ensureUnlocked' | 'planPrefs' | 'spendLimitUsd'>,
    StorageServices {
  vault(): Promise<Vault>;
}

/** The services of the real page: each opens its database (or starts its thread) on first use. */
export function pageServices(): AppServices {
  return {
    runStore: getRunStore,
    ledger: getLedger,
    egress: getEgress,
    vault: getVault,
    bridge: getBridge,
  };
}

export function createAppState(services: AppServices) {
  const unlock = createVaultUnlock(services);
  const storage = createStorage(services);
  const theme = createTheme();
  const router = createRouter();
  const prefs = createPrefs();
  const history = createHistory(services);
  // History's list, once opened, is read again whenever a run ends or one is imported or deleted.
  const runs = createRuns({
    ...services,
    ensureUnlocked: unlock.ensureUnlocked,
    planPrefs: () => prefs.planPrefs.value,
    spendLimitUsd: () => prefs.spendPrefs.value.runLimitUsd,
    historyChanged: history.reloadIfShown,
  });
  return { services, unlock, storage, theme, router, prefs, history, runs };
}

export type AppState = ReturnType<typeof createAppState>;
