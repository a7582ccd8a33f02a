import { computed } from '@preact/signals';
/**
 * The app's state and actions, built from the services they use (preact-www's `createAppState`): the page
 * builds one from the real services (IndexedDB, egress, the conductor thread) and provides it through
 * context (src/ui/app-context.ts); a test builds its own from fake-indexeddb and a scripted conductor.
 * Nothing of it lives at module level, so two app states (two tests, a bench page) share nothing.
 */
import { createAttachments } from './attachments-state.ts';
import { createAutoMode } from './auto-mode.ts';
import { createBackups } from './backups.ts';
import { createBenchState } from './bench-state.ts';
import { createCapabilityProbe } from './capability-probe.ts';
import { type ConductorServices, createConductor } from './conductor.ts';
import { createConnections } from './connections.ts';
import { createHistory } from './history.ts';
import { startIdleLock } from './idle-lock.ts';
import { createKeys } from './keys.ts';
import { createLedgerView } from './ledger-view.ts';
import { createModelCache } from './model-cache.ts';
import { createOutcomes } from './outcomes.ts';
import { createPool } from './pool.ts';
import { createPrefs } from './prefs.ts';
import { createRouter } from './router.ts';
import { createRuns } from './runs/runs.ts';
import { createSavedPrompts } from './saved-prompts.ts';
import { failoverFor, type PageServices } from './services.ts';
import { createStorage, type StorageServices } from './storage.ts';
import { createTheme } from './theme.ts';
import { createThreads } from './threads/threads.ts';
import { createTools } from './tools.ts';
import { threadInstructions, turnHistory } from './turn-context.ts';
import { createVaultUnlock } from './vault-unlock.ts';

export { pageServices } from './services.ts';

export type AppServices = PageServices & Pick<ConductorServices, 'openBridge'> & StorageServices;

export function createAppState(services: AppServices) {
  const unlock = createVaultUnlock(services);
  const keys = createKeys(services);
  const storage = createStorage({
    ...services,
    attachmentBytes: async () => (await services.runStore()).attachmentBytes(),
  });
  const theme = createTheme();
  const router = createRouter();
  const prefs = createPrefs();
  const savedPrompts = createSavedPrompts();
  const device = createCapabilityProbe();
  const pool = createPool(services);
  const conductor = createConductor(services);
  const history = createHistory(services);
  const modelCache = createModelCache({
    bridge: conductor.bridge,
    unload: conductor.unload,
    refreshStorage: storage.refreshStorage,
  });
  const ledgerView = createLedgerView(services);
  const connections = createConnections({ egress: services.egress, bridge: conductor.bridge });
  const outcomes = createOutcomes(services);
  const auto = createAutoMode({ outcomeStore: services.outcomeStore });
  const passages = services.passages ? { passages: services.passages } : {};
  const attachments = createAttachments(passages);
  // The code sandbox's tool is offered while its `run` worker is, when the user turned the tool on too.
  // A call to a server whose token is saved asks for the passphrase first, as a step's key does.
  const tools = createTools(
    services,
    () => pool.includeRun.value && pool.includeRunTool.value,
    unlock.ensureUnlockedFor,
  );
  // A follow-up's files are its own: what is attached under an answer is not attached on Ask.
  const followUpAttachments = createAttachments(passages);
  // A restore's records are read again at once (its settings apply on a reload: backups.ts says why).
  const backups = createBackups(services, async (kinds) => {
    if (kinds.includes('worker')) await pool.loadPool();
    if (kinds.includes('tool')) await tools.load();
    if (kinds.includes('outcome')) await outcomes.reread();
    if (kinds.includes('run') || kinds.includes('thread')) {
      await threads.loadList();
      await history.reloadIfShown();
    }
  });
  // History's list, once opened, is read again whenever a run ends or one is imported or deleted.
  const runs = createRuns({
    ...services,
    bridge: conductor.bridge,
    ensureUnlocked: unlock.ensureUnlocked,
    planPrefs: () => prefs.planPrefs.value,
    runPrefs: () => prefs.runPrefs.value,
    spendLimitUsd: () => prefs.spendPrefs.value.runLimitUsd,
    // A run ended (or was stored): History reads again, and a backup after each run starts.
    historyChanged: async () => {
      backups.runEnded();
      await history.reloadIfShown();
    },
    wholeFileTokens: () => prefs.wholeFileTokens.value,
    memoryExamples: outcomes.examplesFor,
    chooseStrategy: (question, pool, keyless) =>
      auto.pick(question, pool, keyless, conductor.state.value.status === 'ready'),
    markedBad: (runId) => outcomes.outcomeOf(runId)?.good === false,
    turnHistory: async (link) =>
      turnHistory(await services.threadStore(), link.parentRunId, () => prefs.historyPrefs.value),
    threadInstructions: async (link) => threadInstructions(await services.threadStore(), link),
    tools: tools.run,
  });
  const threads = createThreads(runs, {
    threadStore: services.threadStore,
    runStore: services.runStore,
    historyPrefs: () => prefs.historyPrefs.value,
    historyChanged: history.reloadIfShown,
  });
  const benches = createBenchState(services, {
    recordOutcome: outcomes.record,
    ensureUnlocked: unlock.ensureUnlocked,
    // Bench items fail over as the app's runs do, by the same Settings switch.
    failover: () => failoverFor({ egress: services.egress, runPrefs: () => prefs.runPrefs.value }),
  });
  /** Locks the vault after the idle time chosen in Settings; `onUse` reports each use of the page. */
  const startLockWhenIdle = (onUse: (used: () => void) => () => void) =>
    startIdleLock({
      vault: services.vault,
      minutes: computed(() => prefs.vaultPrefs.value.lockAfterMinutes),
      onUse,
    });
  return {
    services,
    benches,
    unlock,
    startLockWhenIdle,
    keys,
    storage,
    theme,
    router,
    prefs,
    savedPrompts,
    device,
    pool,
    conductor,
    history,
    connections,
    modelCache,
    ledgerView,
    runs,
    threads,
    outcomes,
    auto,
    attachments,
    followUpAttachments,
    tools,
    backups,
  };
}

export type AppState = ReturnType<typeof createAppState>;
