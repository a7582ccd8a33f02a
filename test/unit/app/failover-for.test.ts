import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { readRunPrefs } from '../../../src/app/prefs.ts';
import { failoverFor } from '../../../src/app/services.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

function worker(providerId: string, baseURL: string): WorkerSpec {
  return workerSpec({
    id: providerId,
    providerId,
    baseURL,
    model: 'm',
    maxConcurrency: 1,
  });
}

describe('failover preference', () => {
  it('is on unless the user turned it off', () => {
    expect(readRunPrefs(null)).toEqual({ failover: true });
    expect(readRunPrefs('{"failover":false}')).toEqual({ failover: false });
    expect(readRunPrefs('{"failover":"no"}')).toEqual({ failover: true });
    expect(readRunPrefs('not json')).toEqual({ failover: true });
  });
});

describe('failoverFor (how a run of the app fails over)', () => {
  it('is off when the preference is, or when the app gives none', async () => {
    const egress = { fetchFor: () => fetch, hasKey: async () => true };
    expect(
      await failoverFor({ egress: async () => egress, runPrefs: () => ({ failover: false }) }),
    ).toBeUndefined();
    expect(await failoverFor({ egress: async () => egress })).toBeUndefined();
  });

  it('lets a worker take over only when it can send: a key saved for its origin, or a provider that needs none', async () => {
    const [vault, ledger] = await Promise.all([
      openVault('failover-for-vault'),
      openLedger('failover-for-ledger'),
    ]);
    const egress = createEgress({ vault, ledger });
    const failover = await failoverFor({ egress: async () => egress, runPrefs: () => ({ failover: true }) });
    const hasKey = failover?.hasKey;
    if (!hasKey) throw new Error('expected a key check');
    const openai = worker('openai', 'https://api.openai.com/v1');
    expect(await hasKey(worker('custom', 'http://127.0.0.1:9/v1'))).toBe(true);
    expect(await hasKey(openai)).toBe(false);
    await vault.saveKey({
      providerId: 'openai',
      origin: 'https://api.openai.com',
      key: 'sk-failover-AAAAAAAAAAAAAAAA',
    });
    expect(await hasKey(openai)).toBe(true);
  });
});
