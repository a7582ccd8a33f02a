/**
 * Asking for the passphrase where it is needed: a run (or a resume) whose workers may need saved keys
 * awaits `ensureUnlocked` before it starts; with the vault locked, that opens the unlock prompt
 * (src/ui/UnlockPrompt.tsx) and waits for the user.
 */
import { signal } from '@preact/signals';
import { onDevice, type WorkerSpec } from '../pool/types.ts';
import type { Vault } from '../vault/vault.ts';

/** What the open unlock prompt is for; undefined when none is open. */
export interface UnlockRequest {
  /** Why the passphrase is asked for, for the prompt's text ("to run your question"). */
  purpose: string;
  /** Called by the prompt once the vault is open (true) or when the user gave up (false). */
  settle(unlocked: boolean): void;
}

/**
 * The unlock prompt's state for one app state: the open request (read by src/ui/UnlockPrompt.tsx) and
 * `ensureUnlocked`, which runs await before they start.
 */
export function createVaultUnlock(services: { vault(): Promise<Vault> }) {
  const unlockRequest = signal<UnlockRequest | undefined>(undefined);
  let pending: Promise<boolean> | undefined;

  /**
   * Resolves true once the vault is open (at once when it has no passphrase, holds no key, or `pool` has
   * no cloud worker), false when the user cancels the prompt. One prompt at a time: a second caller waits
   * on the one already open. Unlocking elsewhere (Settings, another tab) also settles it.
   */
  async function ensureUnlocked(pool: readonly WorkerSpec[], purpose: string): Promise<boolean> {
    if (!pool.some((w) => !onDevice(w.id))) return true;
    const vault = await services.vault();
    if (vault.state() !== 'locked') return true;
    // Every saved key matters even to a keyless host: egress needs them all to scrub request bodies.
    if ((await vault.listKeys()).length === 0) return true;
    pending ??= new Promise<boolean>((resolve) => {
      const off = vault.onChange((change) => {
        if (change.kind === 'unlocked' || change.kind === 'forgotten' || change.kind === 'passphrase')
          if (vault.state() !== 'locked') settle(true);
      });
      let settled = false;
      function settle(unlocked: boolean) {
        // Both the prompt and the vault's own 'unlocked' event settle it: only the first counts.
        if (settled) return;
        settled = true;
        off();
        pending = undefined;
        unlockRequest.value = undefined;
        resolve(unlocked);
      }
      unlockRequest.value = { purpose, settle };
    });
    return pending;
  }

  return { unlockRequest, ensureUnlocked };
}

export type VaultUnlock = ReturnType<typeof createVaultUnlock>;

/** The error a run fails with when the user declined to unlock. */
export function stillLocked(): Error {
  const error = new Error(
    'The vault is still locked: this run needs your passphrase to use the saved keys. Ask again to unlock it.',
  );
  error.name = 'VaultLocked';
  return error;
}
