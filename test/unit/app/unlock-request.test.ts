import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { getVault } from '../../../src/app/services.ts';
import { ensureUnlocked, unlockRequest } from '../../../src/app/vault-unlock.ts';
import { LOCAL_WORKER, type WorkerSpec } from '../../../src/pool/types.ts';

const PASS = 'correct horse battery staple';
const cloud: WorkerSpec = {
  id: 'w1',
  label: 'Echo',
  strengths: 'echoes',
  providerId: 'custom',
  baseURL: 'http://127.0.0.1:8787/v1',
  model: 'echo',
  maxConcurrency: 1,
  enabled: true,
};

describe('ensureUnlocked', () => {
  it('asks only when the vault is locked and holds keys; one prompt for all callers; unlocking settles it', async () => {
    const vault = await getVault();
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
});
