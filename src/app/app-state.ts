/**
 * The app's state and actions, built from the services they use (preact-www's `createAppState`): the page
 * builds one from the real services (IndexedDB, egress, the conductor thread) and provides it through
 * context (src/ui/app-context.ts); a test builds its own from fake-indexeddb and a scripted conductor.
 */
import type { Vault } from '../vault/vault.ts';
import { getBridge } from './conductor.ts';
import { reloadHistoryIfShown } from './history.ts';
import { planPrefs } from './prefs.ts';
import { createRuns, type RunServices } from './runs.ts';
import { getEgress, getLedger, getRunStore, getVault } from './services.ts';
import { ensureUnlocked } from './vault-unlock.ts';

export interface AppServices extends RunServices {
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
    ensureUnlocked,
    planPrefs: () => planPrefs.value,
    historyChanged: reloadHistoryIfShown,
  };
}

export function createAppState(services: AppServices) {
  return { services, runs: createRuns(services) };
}

export type AppState = ReturnType<typeof createAppState>;
