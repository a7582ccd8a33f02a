import { createAppState } from '../../../src/app/app-state.ts';
import type { RunConductor } from '../../../src/app/runs.ts';
import type { ConductorBridge } from '../../../src/conductor/bridge.ts';
import type { Egress } from '../../../src/egress/egress.ts';
import type { Ledger } from '../../../src/egress/ledger.ts';
import type { RunHistoryStore } from '../../../src/executor/store.ts';
import type { OutcomeStore } from '../../../src/learning/outcome.ts';
import { openOutcomeStore } from '../../../src/learning/outcome-store.ts';
import type { Vault } from '../../../src/vault/vault.ts';

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
}) {
  let outcomes: Promise<OutcomeStore> | undefined;
  return createAppState({
    runStore: async () => parts.runStore,
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
    // A run calls only plan, replan and chat; nothing here loads a model.
    openBridge: async () => parts.conductor as unknown as ConductorBridge,
  });
}
