/**
 * The page's real services: the vault, the ledger, egress, the run store, the pool store and the outcome store. Each opens its
 * IndexedDB database on first use, so the first screen does not wait on them (and their code can be split
 * out). One set per call: the app state owns it (src/app/app-state.ts), and a test builds its own.
 */
import type { Egress } from '../egress/egress.ts';
import type { Ledger } from '../egress/ledger.ts';
import type { RunHistoryStore } from '../executor/store.ts';
import type { OutcomeStore } from '../learning/outcome.ts';
import type { PoolStore } from '../pool/store.ts';
import type { SandboxRunner } from '../sandbox/code-runner.ts';
import type { Vault } from '../vault/vault.ts';

export interface PageServices {
  vault(): Promise<Vault>;
  ledger(): Promise<Ledger>;
  egress(): Promise<Egress>;
  runStore(): Promise<RunHistoryStore>;
  poolStore(): Promise<PoolStore>;
  /** What the user marked good or bad, and the bench scored (src/learning/): never sent anywhere. */
  outcomeStore(): Promise<OutcomeStore>;
  /** The code sandbox `run` steps run in (one frame, and one Python interpreter, for the page). */
  codeSandbox?(): Promise<SandboxRunner>;
}

/** Opens `open()` once, on the first call, and hands every caller the same promise. */
export function once<T>(open: () => Promise<T>): () => Promise<T> {
  let opened: Promise<T> | undefined;
  return () => {
    opened ??= open();
    return opened;
  };
}

export function pageServices(): PageServices {
  const vault = once(() => import('../vault/vault.ts').then((m) => m.openVault()));
  const ledger = once(() => import('../egress/ledger.ts').then((m) => m.openLedger()));
  const egress = once(() =>
    Promise.all([import('../egress/egress.ts'), vault(), ledger()]).then(([m, v, l]) =>
      m.createEgress({ vault: v, ledger: l }),
    ),
  );
  const runStore = once(() => import('../executor/store.ts').then((m) => m.openRunStore()));
  const poolStore = once(() => import('../pool/store.ts').then((m) => m.openPoolStore()));
  const outcomeStore = once(() => import('../learning/outcome-store.ts').then((m) => m.openOutcomeStore()));
  const codeSandbox = once(() => import('../sandbox/code-runner.ts').then((m) => m.createSandboxRunner()));
  return { vault, ledger, egress, runStore, poolStore, outcomeStore, codeSandbox };
}
