import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MIN_PBKDF2_ITERATIONS } from '../../../src/vault/crypto.ts';
import type { KeyRecord, Keyring, VaultSchema } from '../../../src/vault/db.ts';
import type { VaultErrorCode } from '../../../src/vault/errors.ts';
import { openVault, type Vault, type VaultChange } from '../../../src/vault/vault.ts';

const OPENAI_KEY = 'sk-proj-TESTKEY0123456789abcdefWXYZ';
const GROQ_KEY = 'gsk_ANOTHERtestKEY9876543210qrst';
const PASS = 'correct horse battery staple';

let counter = 0;
const opened: Vault[] = [];
/** Every error message a test saw: none may contain a key. */
const messages: string[] = [];

function freshName(): string {
  counter += 1;
  return `vault-test-${counter}-${Math.random().toString(36).slice(2)}`;
}

async function vaultAt(name: string): Promise<Vault> {
  const vault = await openVault(name);
  opened.push(vault);
  return vault;
}

async function rawRecords(name: string): Promise<{ keys: KeyRecord[]; keyring: Keyring | undefined }> {
  const db = await openDB<VaultSchema>(name, 1);
  try {
    return { keys: await db.getAll('keys'), keyring: await db.get('meta', 'keyring') };
  } finally {
    db.close();
  }
}

async function rawPut(name: string, records: KeyRecord[]): Promise<void> {
  const db = await openDB<VaultSchema>(name, 1);
  try {
    for (const record of records) await db.put('keys', record);
  } finally {
    db.close();
  }
}

async function expectVaultError(promise: Promise<unknown> | (() => unknown), code: VaultErrorCode) {
  let caught: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  // By name and code, not instanceof: a vault error may come from another realm.
  expect(caught, `expected VaultError ${code}, got ${String(caught)}`).toMatchObject({
    name: 'VaultError',
    code,
  });
  messages.push((caught as Error).message);
  return caught as Error;
}

function bytesToText(bytes: ArrayBuffer | Uint8Array): string {
  return Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('latin1');
}

afterEach(() => {
  for (const vault of opened.splice(0)) vault.close();
});

describe('saving, listing and deleting keys', () => {
  it('lists keys in the order they were saved even when the clock does not move between saves', async () => {
    const vault = await vaultAt(freshName());
    // Six saves within one millisecond: before, they tied on createdAt and came back in random-id order.
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    const saved: string[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const key = await vault.saveKey({
          providerId: 'openai',
          origin: `https://proxy-${i}.example`,
          key: `${OPENAI_KEY}${i}`,
        });
        saved.push(key.id);
      }
    } finally {
      now.mockRestore();
    }
    const list = await vault.listKeys();
    expect(list.map((k) => k.id)).toEqual(saved);
    expect(new Set(list.map((k) => k.createdAt)).size).toBe(6);
  });

  it('lists keys without their secret, with last4 only for long keys', async () => {
    const vault = await vaultAt(freshName());
    expect(vault.state()).toBe('unlocked');
    expect(vault.hasPassphrase()).toBe(false);
    const a = await vault.saveKey({
      providerId: 'openai',
      origin: 'https://api.openai.com/v1/',
      key: OPENAI_KEY,
    });
    const b = await vault.saveKey({
      providerId: 'lmstudio',
      origin: 'http://localhost:1234',
      key: 'short-key',
      label: '  home box ',
    });
    expect(a).toMatchObject({ providerId: 'openai', origin: 'https://api.openai.com', last4: 'WXYZ' });
    expect(b).toMatchObject({ last4: '••••', label: 'home box', origin: 'http://localhost:1234' });
    const list = await vault.listKeys();
    expect(list.map((k) => k.id)).toEqual([a.id, b.id]);
    for (const entry of list) {
      expect(Object.keys(entry).sort()).toEqual(
        ['createdAt', 'id', 'last4', 'origin', 'providerId', ...(entry.label ? ['label'] : [])].sort(),
      );
    }
    expect(JSON.stringify(list)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(list)).not.toContain('short-key');
    expect(await vault.deleteKey(a.id)).toBe(true);
    expect(await vault.deleteKey(a.id)).toBe(false);
    expect((await vault.listKeys()).map((k) => k.id)).toEqual([b.id]);
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBeUndefined();
  });

  it('replaces the key of the same provider and origin, keeps others', async () => {
    const vault = await vaultAt(freshName());
    await vault.saveKey({ providerId: 'custom', origin: 'https://a.example', key: 'first-key-aaaaaaaa' });
    await vault.saveKey({ providerId: 'custom', origin: 'https://b.example', key: 'other-key-bbbbbbbb' });
    await vault.saveKey({ providerId: 'custom', origin: 'https://a.example/v1', key: 'second-key-cccccccc' });
    expect((await vault.listKeys()).length).toBe(2);
    expect(await vault.keyFor('custom', 'https://a.example')).toBe('second-key-cccccccc');
    expect(await vault.keyFor('custom', 'https://b.example')).toBe('other-key-bbbbbbbb');
  });

  it('trims a pasted key and refuses keys with inner whitespace or non-ASCII, without quoting them', async () => {
    const vault = await vaultAt(freshName());
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: `  ${OPENAI_KEY}\n` });
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    const spaced = await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'https://x.example', key: 'sk-abc def-123456' }),
      'bad-key',
    );
    expect(spaced.message).not.toContain('abc def');
    await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'https://x.example', key: '  ' }),
      'bad-key',
    );
    await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'https://x.example', key: 'sk-ключ-123456789' }),
      'bad-key',
    );
    await expectVaultError(
      vault.saveKey({ providerId: ' ', origin: 'https://x.example', key: OPENAI_KEY }),
      'bad-input',
    );
  });

  it('refuses non-http(s) origins without echoing them', async () => {
    const vault = await vaultAt(freshName());
    const error = await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'not a url sk-secret', key: OPENAI_KEY }),
      'bad-origin',
    );
    expect(error.message).not.toContain('sk-secret');
    await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'ftp://x.example', key: OPENAI_KEY }),
      'bad-origin',
    );
    await expectVaultError(vault.keyFor('x', 'javascript:alert(1)'), 'bad-origin');
  });
});

describe('encryption at rest', () => {
  it('stores only ciphertext, with a fresh IV for every encryption', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    // The same key saved twice (two providers) must give different IVs and ciphertexts.
    await vault.saveKey({ providerId: 'p1', origin: 'https://one.example', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'p2', origin: 'https://two.example', key: OPENAI_KEY });
    const { keys, keyring } = await rawRecords(name);
    expect(keys).toHaveLength(2);
    const [r1, r2] = keys as [KeyRecord, KeyRecord];
    expect(r1.iv.byteLength).toBe(12);
    expect(Buffer.from(r1.iv).equals(Buffer.from(r2.iv))).toBe(false);
    expect(Buffer.from(r1.ciphertext).equals(Buffer.from(r2.ciphertext))).toBe(false);
    // 16-byte GCM tag after the ciphertext.
    expect(r1.ciphertext.byteLength).toBe(OPENAI_KEY.length + 16);
    for (const record of keys) {
      expect(bytesToText(record.ciphertext)).not.toContain(OPENAI_KEY);
      expect(JSON.stringify({ ...record, iv: undefined, ciphertext: undefined })).not.toContain(OPENAI_KEY);
    }
    expect(keyring?.mode).toBe('device');
    if (keyring?.mode !== 'device') return;
    expect(keyring.key.extractable).toBe(false);
    expect(keyring.key.usages.sort()).toEqual(['decrypt', 'encrypt']);
    await expect(crypto.subtle.exportKey('raw', keyring.key)).rejects.toThrow();
  });

  it('binds each ciphertext to its record: swapped ciphertexts and edited origins fail to decrypt', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    const { keys } = await rawRecords(name);
    const openai = keys.find((k) => k.providerId === 'openai')!;
    const groq = keys.find((k) => k.providerId === 'groq')!;

    // Move OpenAI's ciphertext into Groq's record: Groq's key would now "be" the OpenAI key.
    await rawPut(name, [{ ...groq, iv: openai.iv, ciphertext: openai.ciphertext }]);
    const swapped = await expectVaultError(vault.keyFor('groq', 'https://api.groq.com'), 'corrupt');
    expect(swapped.message).toContain('groq');
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);

    // Someone rewrites the record's origin to exfiltrate the key: it no longer decrypts.
    await rawPut(name, [{ ...openai, origin: 'https://evil.example' }]);
    await expectVaultError(vault.keyFor('openai', 'https://evil.example'), 'corrupt');
  });

  it('hands a key out only for its own origin', async () => {
    const vault = await vaultAt(freshName());
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    expect(await vault.keyFor('openai', 'https://api.openai.com/v1/chat/completions')).toBe(OPENAI_KEY);
    // Any other origin gets no key at all (egress then says none is saved for that host).
    expect(await vault.keyFor('openai', 'https://api.openai.com.evil.example')).toBeUndefined();
    expect(await vault.keyFor('openai', 'http://api.openai.com')).toBeUndefined();
    expect(await vault.keyFor('openai', 'https://api.openai.com:8443')).toBeUndefined();
    expect(await vault.keyFor('anthropic', 'https://api.anthropic.com')).toBeUndefined();
  });

  it('looks keys up by origin: a key for one custom endpoint neither blocks nor reaches another', async () => {
    const vault = await vaultAt(freshName());
    await vault.saveKey({
      providerId: 'custom',
      origin: 'http://127.0.0.1:8788/v1',
      key: 'custom-key-8788-xxxx',
    });
    await vault.saveKey({
      providerId: 'custom',
      origin: 'http://127.0.0.1:8789',
      key: 'custom-key-8789-yyyy',
    });
    // The keyless host on 8787 gets no key, rather than an error about the keys of 8788 and 8789.
    expect(await vault.keyFor('custom', 'http://127.0.0.1:8787/v1')).toBeUndefined();
    expect(await vault.keyFor('custom', 'http://127.0.0.1:8788/v1/chat/completions')).toBe(
      'custom-key-8788-xxxx',
    );
    expect(await vault.keyFor('custom', 'http://127.0.0.1:8789')).toBe('custom-key-8789-yyyy');

    // Locked, a host with no key still gets none (no passphrase needed to know that); a keyed one asks.
    await vault.setPassphrase(PASS);
    vault.lock();
    expect(await vault.keyFor('custom', 'http://127.0.0.1:8787')).toBeUndefined();
    await expectVaultError(vault.keyFor('custom', 'http://127.0.0.1:8788'), 'locked');
  });

  it('lists the keys bound elsewhere (for egress to scrub), and asks to unlock only when there are some', async () => {
    const vault = await vaultAt(freshName());
    expect(await vault.keysNotBoundTo('https://api.openai.com')).toEqual([]);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    expect(await vault.keysNotBoundTo('https://api.openai.com/v1')).toEqual([GROQ_KEY]);
    expect((await vault.keysNotBoundTo('http://127.0.0.1:8787')).sort()).toEqual(
      [GROQ_KEY, OPENAI_KEY].sort(),
    );
    await vault.setPassphrase(PASS);
    vault.lock();
    await expectVaultError(vault.keysNotBoundTo('http://127.0.0.1:8787'), 'locked');
  });
});

describe('keys in memory', () => {
  /** Counts IndexedDB transactions opened while `body` runs. */
  async function transactionsDuring(body: () => Promise<unknown>): Promise<number> {
    const proto = globalThis.IDBDatabase.prototype;
    const transaction = proto.transaction;
    let count = 0;
    proto.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      count += 1;
      return transaction.apply(this, args);
    } as IDBDatabase['transaction'];
    try {
      await body();
    } finally {
      proto.transaction = transaction;
    }
    return count;
  }

  it('once open, a key comes from memory: no IndexedDB read per request', async () => {
    const vault = await vaultAt(freshName());
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    const reads = await transactionsDuring(async () => {
      for (let i = 0; i < 5; i++) {
        expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
        expect(await vault.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
        expect(await vault.keysNotBoundTo('https://api.openai.com')).toEqual([GROQ_KEY]);
      }
    });
    expect(reads).toBe(0);
  });

  it('never serves a changed or deleted key stale: not after a save, a delete, a lock, or another tab', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    const other = await vaultAt(name);
    const saved = await vault.saveKey({
      providerId: 'openai',
      origin: 'https://api.openai.com',
      key: OPENAI_KEY,
    });
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    await vault.saveKey({
      providerId: 'openai',
      origin: 'https://api.openai.com',
      key: 'sk-rotated-key-000000001',
    });
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe('sk-rotated-key-000000001');
    const [rotated] = await vault.listKeys();
    expect(rotated!.id).not.toBe(saved.id);
    expect(await vault.deleteKey(rotated!.id)).toBe(true);
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBeUndefined();
    expect(await vault.keysNotBoundTo('https://api.groq.com')).toEqual([]);

    // Another tab saves, then deletes: this tab's memory follows as soon as it hears of it.
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    expect(await other.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
    const heard = new Promise<void>((resolve) => other.onChange((c) => c.kind === 'keys' && resolve()));
    await vault.deleteKey((await vault.listKeys())[0]!.id);
    await heard;
    expect(await other.keyFor('groq', 'https://api.groq.com')).toBeUndefined();

    // Locking forgets every key held in memory.
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    expect(await vault.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
    await vault.setPassphrase(PASS);
    expect(await vault.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
    vault.lock();
    await expectVaultError(vault.keyFor('groq', 'https://api.groq.com'), 'locked');
    await expectVaultError(vault.keysNotBoundTo('https://api.openai.com'), 'locked');
  });
});

describe('passphrase', () => {
  it('refuses empty and short passphrases with a clear message', async () => {
    const vault = await vaultAt(freshName());
    expect((await expectVaultError(vault.setPassphrase(''), 'weak-passphrase')).message).toMatch(/empty/);
    expect((await expectVaultError(vault.setPassphrase('1234567'), 'weak-passphrase')).message).toMatch(
      /at least 8 characters/,
    );
    expect((await expectVaultError(vault.setPassphrase('        '), 'weak-passphrase')).message).toMatch(
      /empty/,
    );
    expect(vault.hasPassphrase()).toBe(false);
    await expectVaultError(() => vault.lock(), 'no-passphrase');
    await expectVaultError(vault.unlock(PASS), 'no-passphrase');
  });

  it('sets, locks, rejects a wrong passphrase without loss, and unlocks', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    const changes: VaultChange['kind'][] = [];
    vault.onChange((c) => changes.push(c.kind));
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    const before = await rawRecords(name);

    await vault.setPassphrase(PASS);
    expect(vault.hasPassphrase()).toBe(true);
    expect(vault.state()).toBe('unlocked');
    expect(await vault.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
    await expectVaultError(vault.setPassphrase('another passphrase'), 'has-passphrase');

    // Nothing in the database can decrypt the keys any more: no CryptoKey is stored, records re-encrypted.
    const after = await rawRecords(name);
    expect(after.keyring?.mode).toBe('passphrase');
    expect(JSON.stringify(Object.keys(after.keyring!)).includes('"key"')).toBe(false);
    if (after.keyring?.mode === 'passphrase') {
      expect(after.keyring.kdf).toMatchObject({
        name: 'PBKDF2',
        hash: 'SHA-256',
        iterations: MIN_PBKDF2_ITERATIONS,
      });
      expect(after.keyring.kdf.salt.byteLength).toBe(16);
    }
    for (const record of after.keys) {
      const old = before.keys.find((r) => r.id === record.id)!;
      expect(Buffer.from(record.iv).equals(Buffer.from(old.iv))).toBe(false);
    }

    vault.lock();
    expect(vault.state()).toBe('locked');
    await expectVaultError(vault.keyFor('openai', 'https://api.openai.com'), 'locked');
    await expectVaultError(
      vault.saveKey({ providerId: 'x', origin: 'https://x.example', key: OPENAI_KEY }),
      'locked',
    );
    expect((await vault.listKeys()).length).toBe(2);

    const wrong = await expectVaultError(vault.unlock('wrong horse battery staple'), 'wrong-passphrase');
    expect(wrong.message).toMatch(/wrong passphrase/i);
    expect(wrong.message).not.toContain('wrong horse');
    await expectVaultError(vault.unlock(''), 'wrong-passphrase');
    expect(vault.state()).toBe('locked');
    expect(await rawRecords(name)).toEqual(after);

    await vault.unlock(PASS);
    expect(vault.state()).toBe('unlocked');
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    expect(changes).toEqual(['keys', 'keys', 'passphrase', 'locked', 'unlocked']);
  });

  it('starts locked when reopened, and unlocks with the passphrase', async () => {
    const name = freshName();
    const first = await vaultAt(name);
    await first.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await first.setPassphrase(PASS);
    first.close();

    const second = await vaultAt(name);
    expect(second.hasPassphrase()).toBe(true);
    expect(second.state()).toBe('locked');
    await expectVaultError(second.keyFor('openai', 'https://api.openai.com'), 'locked');
    await second.unlock(PASS);
    expect(await second.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
  });

  it('changes the passphrase without losing keys; the old one stops working', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.setPassphrase(PASS);
    const before = await rawRecords(name);

    await expectVaultError(
      vault.changePassphrase('not the passphrase', 'new passphrase 2'),
      'wrong-passphrase',
    );
    await expectVaultError(vault.changePassphrase(PASS, 'short'), 'weak-passphrase');
    expect(await rawRecords(name)).toEqual(before);

    await vault.changePassphrase(PASS, 'new passphrase 2');
    const after = await rawRecords(name);
    if (before.keyring?.mode !== 'passphrase' || after.keyring?.mode !== 'passphrase')
      throw new Error('mode');
    expect(Buffer.from(after.keyring.kdf.salt).equals(Buffer.from(before.keyring.kdf.salt))).toBe(false);
    expect(vault.state()).toBe('unlocked');
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);

    vault.lock();
    await expectVaultError(vault.unlock(PASS), 'wrong-passphrase');
    await vault.unlock('new passphrase 2');
    expect(await vault.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
  });

  it('removes the passphrase with the right one only, back to a device key', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.setPassphrase(PASS);
    await expectVaultError(vault.removePassphrase('guessing wrong'), 'wrong-passphrase');
    expect(vault.hasPassphrase()).toBe(true);
    await vault.removePassphrase(PASS);
    expect(vault.hasPassphrase()).toBe(false);
    vault.close();

    const reopened = await vaultAt(name);
    expect(reopened.state()).toBe('unlocked');
    expect(await reopened.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    const { keyring } = await rawRecords(name);
    expect(keyring?.mode === 'device' && keyring.key.extractable).toBe(false);
  });

  it('re-derives with a higher iteration count on unlock, and refuses counts below the floor', async () => {
    await expectVaultError(openVault(freshName(), { iterations: 100_000 }), 'bad-input');
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.setPassphrase(PASS);
    vault.close();

    const stronger = await openVault(name, { iterations: MIN_PBKDF2_ITERATIONS + 50_000 });
    opened.push(stronger);
    await stronger.unlock(PASS);
    const { keyring } = await rawRecords(name);
    expect(keyring?.mode === 'passphrase' && keyring.kdf.iterations).toBe(MIN_PBKDF2_ITERATIONS + 50_000);
    expect(await stronger.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
  });
});

describe('crash safety', () => {
  it('a failure in the middle of re-encryption aborts it whole: the old passphrase still opens every key', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    await vault.setPassphrase(PASS);
    const before = await rawRecords(name);

    // The records are re-encrypted first and the keyring written last, in one transaction: make that
    // last write fail, as a crash or a quota error would, after the record writes were already issued.
    const proto = globalThis.IDBObjectStore.prototype;
    const put = proto.put;
    proto.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'meta') throw new DOMException('Simulated failure', 'UnknownError');
      return put.apply(this, args);
    };
    try {
      await expect(vault.changePassphrase(PASS, 'new passphrase 3')).rejects.toThrow('Simulated failure');
    } finally {
      proto.put = put;
    }
    expect(await rawRecords(name)).toEqual(before);

    const reopened = await vaultAt(name);
    await expectVaultError(reopened.unlock('new passphrase 3'), 'wrong-passphrase');
    await reopened.unlock(PASS);
    expect(await reopened.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    expect(await reopened.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
  });
});

describe('crash safety of removing the passphrase', () => {
  it('a failure in the middle of removing the passphrase loses nothing: it still opens every key', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    await vault.setPassphrase(PASS);
    const before = await rawRecords(name);
    const proto = globalThis.IDBObjectStore.prototype;
    const put = proto.put;
    let puts = 0;
    // Fail the second record write: the first was already issued in the same transaction.
    proto.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'keys' && ++puts === 2)
        throw new DOMException('Simulated failure', 'QuotaExceededError');
      return put.apply(this, args);
    };
    try {
      await expect(vault.removePassphrase(PASS)).rejects.toThrow('Simulated failure');
    } finally {
      proto.put = put;
    }
    expect(puts).toBe(2);
    expect(await rawRecords(name)).toEqual(before);
    const reopened = await vaultAt(name);
    expect(reopened.state()).toBe('locked');
    await reopened.unlock(PASS);
    expect(await reopened.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
    expect(await reopened.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
    // And the vault that saw the failure still serves the keys it had, under the old passphrase.
    expect(vault.hasPassphrase()).toBe(true);
    expect(await vault.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
  });
});

describe('several tabs', () => {
  it('a write with a key another tab replaced is refused, not stored undecryptable', async () => {
    const name = freshName();
    const tabA = await vaultAt(name);
    const tabB = await vaultAt(name);
    await tabA.setPassphrase(PASS);
    // Tab B still holds the old device key in memory (the broadcast may not have arrived yet).
    await expectVaultError(
      tabB.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY }),
      'locked',
    );
    expect(tabB.state()).toBe('locked');
    expect((await rawRecords(name)).keys).toHaveLength(0);
    await tabB.unlock(PASS);
    await tabB.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    expect(await tabA.keyFor('openai', 'https://api.openai.com')).toBe(OPENAI_KEY);
  });

  it('locking one tab locks the others', async () => {
    const name = freshName();
    const tabA = await vaultAt(name);
    await tabA.setPassphrase(PASS);
    const tabB = await vaultAt(name);
    await tabB.unlock(PASS);
    const locked = new Promise<void>((resolve) => tabB.onChange((c) => c.kind === 'locked' && resolve()));
    tabA.lock();
    await locked;
    expect(tabB.state()).toBe('locked');
  });
});

describe('forgetEverything', () => {
  it('deletes the database, even while locked and with another tab open, and starts fresh', async () => {
    const name = freshName();
    const vault = await vaultAt(name);
    const other = await vaultAt(name);
    await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OPENAI_KEY });
    await vault.setPassphrase(PASS);
    vault.lock();
    await vault.forgetEverything();
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name);
    expect(vault.hasPassphrase()).toBe(false);
    expect(vault.state()).toBe('unlocked');
    expect(await vault.listKeys()).toEqual([]);
    expect(await other.listKeys()).toEqual([]);
    await vault.saveKey({ providerId: 'groq', origin: 'https://api.groq.com', key: GROQ_KEY });
    expect(await other.keyFor('groq', 'https://api.groq.com')).toBe(GROQ_KEY);
  });
});

describe('error messages', () => {
  it('never contained a key or a passphrase', () => {
    expect(messages.length).toBeGreaterThan(10);
    for (const message of messages) {
      for (const secret of [OPENAI_KEY, GROQ_KEY, PASS, 'new passphrase 2', 'first-key-aaaaaaaa']) {
        expect(message).not.toContain(secret);
      }
    }
  });
});
