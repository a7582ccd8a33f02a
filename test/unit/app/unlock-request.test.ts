import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { pageServices } from '../../../src/app/services.ts';
import { createVaultUnlock } from '../../../src/app/vault-unlock.ts';
import { LOCAL_WORKER, type WorkerSpec } from '../../../src/pool/types.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const PASS = 'correct horse battery staple';
const cloud: WorkerSpec = workerSpec({
  id: 'w1',
  label: 'Echo',
  strengths: 'echoes',
  baseURL: 'http://127.0.0.1:8787/v1',
  model: 'echo',
  maxConcurrency: 1,
});

describe('ensureUnlocked', () => {
  it('asks only when the vault is locked and holds keys; one prompt for all callers; unlocking settles it', async () => {
    const getVault = pageServices().vault;
    const vault = await getVault();
    const { ensureUnlocked, unlockRequest } = createVaultUnlock({ vault: getVault });
    // No passphrase: nothing to ask.
    expect(await ensureUnlocked([cloud], 'to run your question')).toBe(true);
    await vault.setPassphrase(PASS);
    vault.lock();
    // Locked but empty: no key could be needed or leak.
    expect(await ensureUnlocked([cloud], 'to run your question')).toBe(true);
    expect(unlockRequest.value).toBeUndefined();
    await vault.unlock(PASS);
    await vault.saveKey({ providerId: 'custom', origin: cloud.baseURL, key: 'sk-unlock-unit-0123456789' });
    vault.lock();

    // Only the on-device model: no key involved.
    expect(await ensureUnlocked([{ ...cloud, id: LOCAL_WORKER }], 'to run your question')).toBe(true);

    const first = ensureUnlocked([cloud], 'to run your question');
    const second = ensureUnlocked([cloud], 'to resume this run');
    await expect.poll(() => unlockRequest.value?.purpose).toBe('to run your question');
    unlockRequest.value!.settle(false);
    expect(await first).toBe(false);
    expect(await second).toBe(false);
    expect(unlockRequest.value).toBeUndefined();
    expect(vault.state()).toBe('locked');

    // Unlocked elsewhere (Settings): the waiting run goes on, and the prompt closes.
    const third = ensureUnlocked([cloud], 'to resume this run');
    await expect.poll(() => unlockRequest.value?.purpose).toBe('to resume this run');
    await vault.unlock(PASS);
    expect(await third).toBe(true);
    expect(unlockRequest.value).toBeUndefined();
  });

  it('two app states keep their own prompt: one asking does not open the other', async () => {
    const [vaultA, vaultB] = await Promise.all([openVault('unlock-a'), openVault('unlock-b')]);
    for (const vault of [vaultA, vaultB]) {
      await vault.setPassphrase(PASS);
      await vault.saveKey({ providerId: 'custom', origin: cloud.baseURL, key: 'sk-unlock-unit-0123456789' });
      vault.lock();
    }
    const a = createVaultUnlock({ vault: async () => vaultA });
    const b = createVaultUnlock({ vault: async () => vaultB });

    const asked = a.ensureUnlocked([cloud], 'to run your question');
    await expect.poll(() => a.unlockRequest.value?.purpose).toBe('to run your question');
    expect(b.unlockRequest.value).toBeUndefined();
    // B's own request is its own prompt, not a wait on A's.
    const askedB = b.ensureUnlocked([cloud], 'to resume this run');
    await expect.poll(() => b.unlockRequest.value?.purpose).toBe('to resume this run');
    b.unlockRequest.value!.settle(false);
    expect(await askedB).toBe(false);
    expect(a.unlockRequest.value?.purpose).toBe('to run your question');
    a.unlockRequest.value!.settle(false);
    expect(await asked).toBe(false);
  });
});
