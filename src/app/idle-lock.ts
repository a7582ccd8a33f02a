/**
 * The vault locks itself after the time without use the user chose (Settings → API keys): an unlocked
 * vault stays open for the tab's life otherwise, so a browser left open on a shared desk keeps the keys
 * usable. Use is a key press or a pointer press on the page, and a request a run sends counts only through
 * the user who started it. Locking here locks the other tabs too (the vault's own rule).
 */
import { effect, type ReadonlySignal } from '@preact/signals';
import type { Vault } from '../vault/vault.ts';

/** The choices Settings offers, in minutes; undefined: never. */
export const IDLE_LOCK_MINUTES = [5, 15, 30, 60] as const;

export interface IdleLockOptions {
  vault: () => Promise<Vault>;
  /** Minutes without use before the vault locks; undefined: never. */
  minutes: ReadonlySignal<number | undefined>;
  /** Calls `used` on each use of the page; returns how to stop listening. */
  onUse: (used: () => void) => () => void;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** Starts watching; returns how to stop. */
export function startIdleLock(options: IdleLockOptions): () => void {
  const setTimer = options.setTimer ?? ((run, ms) => setTimeout(run, ms));
  const clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  let timer: unknown;
  let vault: Vault | undefined;
  const stop = () => {
    if (timer !== undefined) clearTimer(timer);
    timer = undefined;
  };
  const arm = () => {
    stop();
    const minutes = options.minutes.value;
    if (minutes === undefined || !vault?.hasPassphrase() || vault.state() !== 'unlocked') return;
    timer = setTimer(() => {
      timer = undefined;
      // Only a vault with a passphrase can be locked (checked again: it may have been removed since).
      if (vault?.hasPassphrase() && vault.state() === 'unlocked') vault.lock();
    }, minutes * 60_000);
  };
  let offVault: (() => void) | undefined;
  let stopped = false;
  void options.vault().then((opened) => {
    if (stopped) return;
    vault = opened;
    offVault = opened.onChange(arm);
    arm();
  });
  const offUse = options.onUse(arm);
  const offMinutes = effect(() => {
    void options.minutes.value;
    arm();
  });
  return () => {
    stopped = true;
    stop();
    offVault?.();
    offUse();
    offMinutes();
  };
}
