/**
 * Asking for the passphrase where it is needed: a step whose worker sends a saved key awaits
 * `ensureUnlocked` before it is sent (a whole plan, before it starts; a streamed plan, as each such step
 * arrives); with the vault locked, that opens the unlock prompt (src/ui/UnlockPrompt.tsx) and waits for the
 * user. Once unlocked, the vault stays so for the page's life: no later question asks again.
 */
import { signal } from '@preact/signals';
import { presetById } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import type { ChatTransport } from '../providers/transport.ts';
import { onDevice } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { KeyInfo, Vault } from '../vault/vault.ts';

/**
 * Whether `worker`'s requests carry a saved key: its provider needs one, or one is saved for its origin.
 * Any other worker (on the device, a local server, a custom endpoint without a key) needs no passphrase:
 * egress sends its request while locked when the body provably holds no saved key.
 */
export function sendsKey(
  worker: WorkerSpec,
  keys: readonly Pick<KeyInfo, 'providerId' | 'origin'>[],
): boolean {
  if (onDevice(worker.id)) return false;
  if (presetById(worker.providerId)?.needsKey ?? true) return true;
  let origin: string;
  try {
    origin = new URL(worker.baseURL).origin;
  } catch {
    return false;
  }
  return keys.some((k) => k.providerId === worker.providerId && k.origin === origin);
}

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
   * Resolves true once the vault is open (at once when it has no passphrase, holds no key, or no worker of
   * `workers` sends a saved key), false when the user cancels the prompt. One prompt at a time: a second
   * caller waits on the one already open. Unlocking elsewhere (Settings, another tab) also settles it.
   */
  async function ensureUnlocked(workers: readonly WorkerSpec[], purpose: string): Promise<boolean> {
    if (!workers.some((w) => !onDevice(w.id))) return true;
    return ensureUnlockedFor((keys) => workers.some((w) => sendsKey(w, keys)), purpose);
  }

  /**
   * The same for any request that may send a saved key (an MCP server's token, src/app/tools.ts): asks only
   * when the vault is locked and `needsKey` says one of the saved keys (listed while locked) is wanted.
   */
  async function ensureUnlockedFor(
    needsKey: (keys: readonly KeyInfo[]) => boolean,
    purpose: string,
  ): Promise<boolean> {
    const vault = await services.vault();
    if (vault.state() !== 'locked') return true;
    if (!needsKey(await vault.listKeys())) return true;
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

  /**
   * The prompt's answer: unlocks the vault with `passphrase` and settles the open request. A wrong
   * passphrase throws (the vault's own error, which says so) and leaves the request open.
   */
  async function answer(passphrase: string): Promise<void> {
    const request = unlockRequest.value;
    const vault = await services.vault();
    await vault.unlock(passphrase);
    request?.settle(true);
  }

  return { unlockRequest, ensureUnlocked, ensureUnlockedFor, answer };
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

/**
 * Each worker's transport, asking for the passphrase (`unlock`) before a request of a worker that may send
 * a saved key, so a plan still streaming asks only once a step that needs a key is sent. Declined, the
 * step fails saying so and nothing is sent.
 */
export function unlockingFirst(
  transportFor: (worker: WorkerSpec) => ChatTransport,
  unlock: (worker: WorkerSpec) => Promise<boolean>,
): (worker: WorkerSpec) => ChatTransport {
  return (worker) => {
    const inner = transportFor(worker);
    if (onDevice(worker.id)) return inner;
    return {
      async *stream(target, request) {
        // A refusal, not a cut stream: a stream's failure is tried again, which asked again at once.
        // The user's typing is off the step's clocks (no stall, no time limit while the prompt is open).
        const asking = () => unlock(target);
        const unlocked = await (request.userWait ? request.userWait(asking) : asking());
        if (!unlocked) throw new ProviderError('refused', stillLocked().message);
        yield* inner.stream(target, request);
      },
    };
  };
}
