import { afterAll, beforeAll } from 'vitest';
import { createAppState } from '../../../src/app/app-state.ts';
import type { RunConductor } from '../../../src/app/services.ts';
import type { ConductorBridge } from '../../../src/conductor/bridge.ts';
import { createEgress, type Egress } from '../../../src/egress/egress.ts';
import { type Ledger, openLedger } from '../../../src/egress/ledger.ts';
import { BenchStore } from '../../../src/evaluation/bench-store.ts';
import { PlannerCompareStore } from '../../../src/evaluation/compare-planners-store.ts';
import type { OutcomeStore } from '../../../src/learning/outcome.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';
import { openRunStore, type RunHistoryStore } from '../../../src/records/run-store.ts';
import { openThreadStore, type ThreadStore } from '../../../src/records/thread-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import type { ToolStore } from '../../../src/tools/store.ts';
import { openVault, type Vault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

/**
 * An app state over the given stores and a scripted conductor, as the page builds one over the real
 * services. The pool comes with each `ask()`, so the pool store is never opened. Without an outcome
 * store given, each app state opens an empty one of its own (fake-indexeddb).
 */
export function testAppState(parts: {
  runStore: RunHistoryStore;
  ledger: Ledger;
  egress: Egress;
  vault: Vault;
  conductor: RunConductor;
  outcomeStore?: OutcomeStore;
  /** Threads over the same database as `runStore` (keyedServices opens both); absent: an empty one. */
  threadStore?: ThreadStore;
  /** How the conductor's thread is reached; absent: at once, as `conductor`. */
  openBridge?: () => Promise<ConductorBridge>;
  /** The MCP servers (Settings → Tools); absent: no tools. */
  toolStore?: ToolStore;
}) {
  const { toolStore } = parts;
  let outcomes: Promise<OutcomeStore> | undefined;
  return createAppState({
    runStore: async () => parts.runStore,
    threadStore: async () => parts.threadStore ?? openThreadStore(`test-threads-${crypto.randomUUID()}`),
    ledger: async () => parts.ledger,
    egress: async () => parts.egress,
    vault: async () => parts.vault,
    poolStore: async () => {
      throw new Error('these tests pass their pool to ask()');
    },
    outcomeStore: () =>
      (outcomes ??= parts.outcomeStore
        ? Promise.resolve(parts.outcomeStore)
        : openOutcomeStore(`test-outcomes-${crypto.randomUUID()}`)),
    benchStore: () => BenchStore.open(`test-bench-${crypto.randomUUID()}`),
    plannerCompareStore: () => PlannerCompareStore.open(`test-planner-compare-${crypto.randomUUID()}`),
    // A run calls only plan, replan and chat; nothing here loads a model.
    openBridge: parts.openBridge ?? (async () => parts.conductor as unknown as ConductorBridge),
    ...(toolStore ? { toolStore: async () => toolStore } : {}),
  });
}

/** A worker on the test provider (preset `p-test`, free), as the app-state tests build their pools. */
export function testWorker(baseURL: string, id: string, label: string, modelId: string): WorkerSpec {
  return workerSpec({
    id,
    label,
    strengths: 'test',
    providerId: 'p-test',
    baseURL,
    model: modelId,
    maxConcurrency: 1,
    price: { inputPerM: 0, outputPerM: 0 },
  });
}

/**
 * A test provider that asks for `key`, started before a file's tests and closed after them, with the
 * file's workers on it (as `testWorker` builds them).
 */
export function keyedTestProvider(key: string) {
  let started: TestProvider | undefined;
  beforeAll(async () => {
    started = await startProvider({ apiKey: key });
  });
  afterAll(async () => {
    await started?.close();
  });
  const keyed = {
    get provider(): TestProvider {
      if (!started) throw new Error('The test provider starts in beforeAll.');
      return started;
    },
    worker: (id: string, label: string, modelId: string): WorkerSpec =>
      testWorker(keyed.provider.baseURL, id, label, modelId),
  };
  return keyed;
}

/**
 * Real stores named after `name` (fake-indexeddb), a vault holding `key` for `p-test` at the provider's
 * origin, and egress over them that knows `presetIds` as keyed custom presets.
 */
export async function keyedServices(
  name: string,
  provider: Pick<TestProvider, 'url'>,
  key: string,
  presetIds: readonly string[] = ['p-test'],
) {
  const [runStore, ledger, vault] = await Promise.all([
    openRunStore(`${name}-runs`),
    openLedger(`${name}-ledger`),
    openVault(`${name}-vault`),
  ]);
  const threadStore = await openThreadStore(`${name}-runs`);
  await vault.saveKey({ providerId: 'p-test', origin: provider.url, key });
  const egress = createEgress({
    vault,
    ledger,
    presetFor: (id) =>
      presetIds.includes(id)
        ? { ...presetById('custom')!, id, name: 'Test provider', needsKey: true }
        : presetById(id),
  });
  return { runStore, threadStore, ledger, vault, egress };
}
