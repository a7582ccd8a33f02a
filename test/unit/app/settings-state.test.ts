import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnections } from '../../../src/app/connections.ts';
import { createKeys, PASSPHRASES_DIFFER } from '../../../src/app/keys.ts';
import { createLedgerView } from '../../../src/app/ledger-view.ts';
import type { ConductorBridge } from '../../../src/conductor/bridge.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { type NewLedgerEntry, openLedger } from '../../../src/egress/ledger.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// What Settings shows is the app's, not a component's: these drive the app members as the panels do and
// read the same signals the panels read.

const unique = (what: string) => `${what}-${crypto.randomUUID()}`;

describe('keys', () => {
  it('follow the vault: a saved key is listed, a lock hides the list, a wrong passphrase is said', async () => {
    const vault = await openVault(unique('keys-vault'));
    const keys = createKeys({ vault: async () => vault });
    await keys.watch();
    expect(keys.vault.value).toBe(vault);
    expect(keys.list.value).toEqual([]);

    expect(
      await keys.save({ providerId: 'openai', origin: 'https://api.openai.com', key: 'sk-abcdefgh1234' }),
    ).toEqual({
      kind: 'ok',
      text: 'Key saved.',
    });
    await expect.poll(() => keys.list.value.map((k) => k.last4)).toEqual(['1234']);

    // A repeat that differs sets nothing: one typo would have locked the keys away.
    expect(await keys.setPassphrase('correct horse', 'correct horsr')).toEqual({
      kind: 'error',
      text: PASSPHRASES_DIFFER,
    });
    expect(vault.hasPassphrase()).toBe(false);
    expect((await keys.setPassphrase('correct horse', 'correct horse')).kind).toBe('ok');
    await expect.poll(() => keys.hasPassphrase.value).toBe(true);
    expect((await keys.lock()).kind).toBe('ok');
    await expect.poll(() => keys.locked.value).toBe(true);
    expect(keys.list.value).toEqual([]);

    const wrong = await keys.unlock('wrong passphrase');
    expect(wrong.kind).toBe('error');
    expect(wrong.text).not.toBe('Something went wrong.');
    expect(keys.locked.value).toBe(true);

    expect(await keys.unlock('correct horse')).toEqual({ kind: 'ok', text: 'Unlocked.' });
    await expect.poll(() => keys.list.value.length).toBe(1);
    expect(keys.locked.value).toBe(false);
  });

  it('opens the vault once, however many panels watch it', async () => {
    let opened = 0;
    const vault = await openVault(unique('keys-once'));
    const keys = createKeys({
      vault: async () => {
        opened++;
        return vault;
      },
    });
    await Promise.all([keys.watch(), keys.watch(), keys.watch()]);
    expect(opened).toBe(1);
  });
});

describe('connections', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startProvider({ apiKey: 'sk-connections-1234' });
    provider.setModel({ id: 'm1', behaviour: { kind: 'fixed', text: 'ok' } });
  });
  afterAll(() => provider.close());

  it('keeps the last model listing for its provider and URL only', async () => {
    const [vault, ledger] = await Promise.all([
      openVault(unique('conn-vault')),
      openLedger(unique('conn-ledger')),
    ]);
    await vault.saveKey({ providerId: 'custom', origin: provider.url, key: 'sk-connections-1234' });
    const egress = createEgress({ vault, ledger });
    const connections = createConnections({
      egress: async () => egress,
      bridge: () => Promise.reject(new Error('no thread here')),
    });
    const here = { providerId: 'custom', baseURL: provider.baseURL };
    await connections.discover(here);
    expect(connections.check.value).toMatchObject({ ok: true });
    expect(connections.modelsAt(here)).toContain('m1');
    // Another provider or URL is not offered the models found here.
    expect(connections.modelsAt({ ...here, baseURL: 'http://127.0.0.1:9/v1' })).toEqual([]);
    expect(connections.checking.value).toBe(false);
  });

  it("shows the local server's answer only for the URL asked last", async () => {
    const answers = new Map<string, (ids: string[]) => void>();
    const bridge = {
      serverModels: (url: string) => new Promise<string[]>((resolve) => answers.set(url, resolve)),
    } as unknown as ConductorBridge;
    const connections = createConnections({
      egress: () => Promise.reject(new Error('not used')),
      bridge: async () => bridge,
    });
    const first = connections.askServer('http://127.0.0.1:8080');
    const second = connections.askServer('http://127.0.0.1:11434');
    await expect.poll(() => answers.size).toBe(2);
    answers.get('http://127.0.0.1:11434')?.(['qwen2.5:14b']);
    await second;
    // The earlier ask answers late: it does not replace the later one.
    answers.get('http://127.0.0.1:8080')?.(['other']);
    await first;
    expect(connections.serverModels.value).toEqual({
      state: 'found',
      url: 'http://127.0.0.1:11434',
      ids: ['qwen2.5:14b'],
    });
  });
});

describe('the ledger view', () => {
  const entry = (time: number): NewLedgerEntry => ({
    time,
    purpose: 'chat',
    providerId: 'openai',
    host: 'api.openai.com',
    method: 'POST',
    path: '/v1/chat/completions',
    sent: true,
    keyAttached: true,
    state: 'done',
    status: 200,
    bytesOut: 10,
    bytesIn: 20,
  });

  it('turns pages, comes back, and follows new entries while open', async () => {
    const ledger = await openLedger(unique('view-ledger'));
    for (let i = 0; i < 130; i++) await ledger.add(entry(i));
    const view = createLedgerView({ ledger: async () => ledger });
    const close = view.open();
    await expect.poll(() => view.page.value?.entries.length).toBe(100);
    expect(view.page.value?.total).toBe(130);
    view.older();
    await expect.poll(() => view.page.value?.entries.length).toBe(30);
    expect(view.trail.value.length).toBe(2);
    view.newer();
    await expect.poll(() => view.page.value?.entries.length).toBe(100);

    await ledger.add(entry(1000));
    await expect.poll(() => view.page.value?.total).toBe(131);
    close();
    await ledger.add(entry(1001));
    await new Promise((r) => setTimeout(r, 50));
    expect(view.page.value?.total).toBe(131);
  });
});
