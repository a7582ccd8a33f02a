import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { pageServices } from '../../../src/app/services.ts';
import { createVaultUnlock, unlockingFirst } from '../../../src/app/vault-unlock.ts';
import { LOCAL_WORKER } from '../../../src/shared/worker-ids.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
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

  it('does not ask for workers that send no saved key; a streamed step asks only when it is sent', async () => {
    const vault = await openVault('unlock-keyless');
    await vault.setPassphrase(PASS);
    await vault.saveKey({ providerId: 'custom', origin: cloud.baseURL, key: 'sk-unlock-unit-0123456789' });
    vault.lock();
    const { ensureUnlocked, unlockRequest } = createVaultUnlock({ vault: async () => vault });
    // A local server at another origin, with no key saved for it: nothing of the vault is sent to it.
    const keyless = { ...cloud, id: 'w2', baseURL: 'http://127.0.0.1:9999/v1' };
    expect(await ensureUnlocked([keyless], 'to run your question')).toBe(true);
    expect(unlockRequest.value).toBeUndefined();
    expect(vault.state()).toBe('locked');

    // Through the run's transports: the keyless worker's request is sent at once; the keyed one's waits
    // for the prompt, and fails saying so when it is declined.
    const sent: string[] = [];
    const transportFor = unlockingFirst(
      () => ({
        async *stream(worker) {
          sent.push(worker.id);
          yield { type: 'delta', text: 'ok' } as const;
        },
      }),
      (worker) => ensureUnlocked([worker], 'to run your question'),
    );
    const drain = async (worker: WorkerSpec) => {
      const request = { messages: [], signal: new AbortController().signal, runId: 'r', stepIndex: 0 };
      for await (const _ of transportFor(worker).stream(worker, request));
    };
    await drain(keyless);
    expect(sent).toEqual(['w2']);
    expect(unlockRequest.value).toBeUndefined();
    const keyed = drain(cloud);
    await expect.poll(() => unlockRequest.value?.purpose).toBe('to run your question');
    expect(sent).toEqual(['w2']);
    unlockRequest.value!.settle(false);
    await expect(keyed).rejects.toThrow('The vault is still locked');
    expect(sent).toEqual(['w2']);
    vault.close();
  });

  it('answers the prompt: a wrong passphrase says so and keeps it open; the right one unlocks and settles it', async () => {
    const vault = await openVault(`unlock-answer-${crypto.randomUUID()}`);
    const { ensureUnlocked, unlockRequest, answer } = createVaultUnlock({ vault: async () => vault });
    await vault.setPassphrase(PASS);
    await vault.saveKey({ providerId: 'custom', origin: cloud.baseURL, key: 'sk-unlock-answer-0123456789' });
    vault.lock();
    const asked = ensureUnlocked([cloud], 'to run your question');
    await expect.poll(() => unlockRequest.value?.purpose).toBe('to run your question');
    await expect(answer('not the passphrase')).rejects.toThrow();
    expect(unlockRequest.value).toBeDefined();
    expect(vault.state()).toBe('locked');
    await answer(PASS);
    expect(await asked).toBe(true);
    expect(unlockRequest.value).toBeUndefined();
    expect(vault.state()).toBe('unlocked');
  });
});
