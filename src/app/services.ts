/**
 * Lazily opened singletons: the vault, the ledger, egress and the run store. Each opens its IndexedDB
 * database on first use, so the first screen does not wait on them (and their code can be split out).
 */
import type { Egress } from '../egress/egress.ts';
import type { Ledger } from '../egress/ledger.ts';
import type { RunHistoryStore } from '../executor/store.ts';
import type { Vault } from '../vault/vault.ts';

let vault: Promise<Vault> | undefined;
let ledger: Promise<Ledger> | undefined;
let egress: Promise<Egress> | undefined;
let runs: Promise<RunHistoryStore> | undefined;

export function getVault(): Promise<Vault> {
  vault ??= import('../vault/vault.ts').then((m) => m.openVault());
  return vault;
}

export function getLedger(): Promise<Ledger> {
  ledger ??= import('../egress/ledger.ts').then((m) => m.openLedger());
  return ledger;
}

export function getEgress(): Promise<Egress> {
  egress ??= Promise.all([import('../egress/egress.ts'), getVault(), getLedger()]).then(([m, v, l]) =>
    m.createEgress({ vault: v, ledger: l }),
  );
  return egress;
}

export function getRunStore(): Promise<RunHistoryStore> {
  runs ??= import('../executor/store.ts').then((m) => m.openRunStore());
  return runs;
}
