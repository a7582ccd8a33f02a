import type { Vault } from '../../src/vault/vault.ts';
import { expect, type Page, test } from './app-test.ts';

// The real vault in Chromium's real IndexedDB, through the harness page test/pages/vault.html.
const HARNESS = '/test/pages/vault.html';

/** What the harness page puts on window (declared in test/pages/vault.ts, which this tsconfig does not see). */
type HarnessWindow = typeof globalThis & {
  __vault?: Vault;
  __vaultHarness?: {
    deriveKey(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<CryptoKey>;
    randomBytes(length: number): Uint8Array<ArrayBuffer>;
    iterations: number;
  };
};
const KEY = 'sk-proj-BrowserSecret0123456789abcdefQRST';
const PASS = 'correct horse battery staple';
const NEW_PASS = 'a different long passphrase';

/** Every encoding of the key that could end up in storage. */
function encodings(key: string): string[] {
  const utf8 = Buffer.from(key, 'utf8');
  const utf16 = Buffer.from(key, 'utf16le');
  return [
    key,
    utf8.toString('base64'),
    utf8.toString('base64url'),
    utf8.toString('hex'),
    utf8.toString('hex').toUpperCase(),
    utf16.toString('hex'),
    utf16.toString('base64'),
    encodeURIComponent(key),
    key.slice(0, -4), // everything but the last 4 (which we do show)
  ];
}

async function openHarness(page: Page): Promise<void> {
  await page.goto(HARNESS);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

/**
 * Dumps every value of every object store of every IndexedDB database of the page's origin. Byte values
 * are written as hex, base64, latin1 and UTF-8 text; CryptoKeys as their public properties.
 */
function dumpIndexedDb(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    const latin1 = (b: Uint8Array) => Array.from(b, (x) => String.fromCharCode(x)).join('');
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const serialize = async (value: unknown): Promise<unknown> => {
      if (value instanceof CryptoKey) {
        const { type, extractable, algorithm, usages } = value;
        return { cryptoKey: { type, extractable, algorithm, usages } };
      }
      if (value instanceof Blob) value = await value.arrayBuffer();
      if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
        const b = ArrayBuffer.isView(value)
          ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
          : new Uint8Array(value);
        return {
          bytes: {
            length: b.length,
            hex: hex(b),
            base64: btoa(latin1(b)),
            latin1: latin1(b),
            utf8: new TextDecoder().decode(b),
          },
        };
      }
      if (value instanceof Date) return value.toISOString();
      if (value instanceof Map) return { map: await serialize([...value]) };
      if (value instanceof Set) return { set: await serialize([...value]) };
      if (Array.isArray(value)) return Promise.all(value.map(serialize));
      if (value && typeof value === 'object') {
        const entries = await Promise.all(
          Object.entries(value).map(async ([k, v]) => [k, await serialize(v)]),
        );
        return Object.fromEntries(entries);
      }
      return value;
    };
    const databases = [];
    for (const info of await indexedDB.databases()) {
      const db = await request(indexedDB.open(info.name!));
      const stores: Record<string, unknown> = {};
      for (const name of Array.from(db.objectStoreNames)) {
        const store = db.transaction(name).objectStore(name);
        const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
        stores[name] = await Promise.all(
          keys.map(async (key, i) => ({ key: await serialize(key), value: await serialize(values[i]) })),
        );
      }
      db.close();
      databases.push({ name: info.name, version: info.version, stores });
    }
    return JSON.stringify(databases, null, 1);
  });
}

async function saveKeyThroughForm(page: Page, key: string): Promise<void> {
  await page.getByLabel('Key').fill(key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByTestId('keys')).toContainText(`openai https://api.openai.com …${key.slice(-4)}`);
}

async function press(page: Page, action: string, passphrase?: string, next?: string): Promise<void> {
  if (passphrase !== undefined) await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  if (next !== undefined) await page.getByLabel('New passphrase').fill(next);
  await page.getByRole('button', { name: action, exact: true }).click();
}

/** keyFor through the page, errors turned into data (they cross the evaluate boundary as plain text). */
function keyFor(page: Page, providerId = 'openai', origin = 'https://api.openai.com') {
  return page.evaluate(
    async ([p, o]) => {
      try {
        return { key: await (window as HarnessWindow).__vault!.keyFor(p, o) };
      } catch (error) {
        const e = error as { name: string; code: string; message: string };
        return { error: { name: e.name, code: e.code, message: e.message } };
      }
    },
    [providerId, origin] as const,
  );
}

test('after saving a key, no IndexedDB store holds it in any encoding, and the page shows only its last 4', async ({
  page,
}) => {
  await openHarness(page);
  await saveKeyThroughForm(page, KEY);

  const dump = await dumpIndexedDb(page);
  // The dump really holds the vault: the record, its ciphertext bytes and the stored (non-extractable) key.
  const databases = JSON.parse(dump) as { name: string; stores: Record<string, { value: unknown }[]> }[];
  const vaultDb = databases.find((d) => d.name === 'baton-vault');
  expect(vaultDb).toBeDefined();
  expect(Object.keys(vaultDb!.stores).sort()).toEqual(['keys', 'meta']);
  expect(vaultDb!.stores.keys).toHaveLength(1);
  expect(vaultDb!.stores.keys![0]!.value).toMatchObject({
    providerId: 'openai',
    origin: 'https://api.openai.com',
    last4: 'QRST',
    iv: { bytes: { length: 12 } },
    ciphertext: { bytes: { length: KEY.length + 16 } },
  });
  expect(vaultDb!.stores.meta![0]!.value).toMatchObject({
    mode: 'device',
    key: { cryptoKey: { type: 'secret', extractable: false } },
  });
  for (const form of encodings(KEY)) expect(dump).not.toContain(form);

  // Nor the page: not in the DOM, not in any input, not in Web Storage.
  const pageText = await page.evaluate(() =>
    [
      document.documentElement.outerHTML,
      ...Array.from(document.querySelectorAll('input'), (i) => `${i.value} ${i.placeholder}`),
      JSON.stringify({ ...localStorage }),
      JSON.stringify({ ...sessionStorage }),
    ].join('\n'),
  );
  expect(pageText).toContain('…QRST');
  expect(pageText).not.toContain(KEY.slice(0, -4));

  // The key comes out for its own origin only.
  expect(await keyFor(page)).toEqual({ key: KEY });
  expect(await keyFor(page, 'openai', 'https://api.openai.com.evil.example')).toEqual({ key: undefined });

  // With a passphrase, no CryptoKey is stored at all, and the key is still nowhere in plaintext.
  await press(page, 'Set passphrase', PASS);
  await expect(page.getByTestId('vault-state')).toHaveAttribute('data-has-passphrase', 'true');
  const locked = await dumpIndexedDb(page);
  expect(locked).not.toContain('cryptoKey');
  expect(locked).toContain('"iterations": 600000');
  for (const form of [...encodings(KEY), ...encodings(PASS)]) expect(locked).not.toContain(form);
});

test('passphrase: set, reload locked, wrong passphrase shown, unlock, lock, change, remove, forget', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const state = page.getByTestId('vault-state');
  const alert = page.getByTestId('vault-error');
  await openHarness(page);
  await saveKeyThroughForm(page, KEY);

  await press(page, 'Set passphrase', 'short');
  await expect(alert).toContainText('at least 8 characters');
  await expect(state).toHaveAttribute('data-has-passphrase', 'false');
  await press(page, 'Set passphrase', PASS);
  await expect(state).toHaveAttribute('data-has-passphrase', 'true');
  await expect(alert).toHaveText('');
  await expect(state).toHaveText('unlocked');

  // A reload forgets the derived key: locked, and keys cannot be read.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(state).toHaveText('locked');
  expect((await keyFor(page)).error).toMatchObject({ code: 'locked' });
  await expect(page.getByTestId('keys')).toContainText('…QRST'); // still listed while locked

  await press(page, 'Unlock', 'wrong horse battery staple');
  await expect(alert).toContainText('Wrong passphrase');
  await expect(state).toHaveText('locked');
  await expect(page.getByTestId('keys')).toContainText('…QRST');

  await press(page, 'Unlock', PASS);
  await expect(state).toHaveText('unlocked');
  await expect(alert).toHaveText('');
  expect(await keyFor(page)).toEqual({ key: KEY });

  await press(page, 'Lock');
  await expect(state).toHaveText('locked');
  expect((await keyFor(page)).error).toMatchObject({ code: 'locked' });

  // Change: needs the old passphrase; afterwards only the new one opens the vault, keys intact.
  await press(page, 'Change passphrase', 'not the old one at all', NEW_PASS);
  await expect(alert).toContainText('Wrong passphrase');
  await press(page, 'Change passphrase', PASS, NEW_PASS);
  await expect(state).toHaveText('unlocked');
  await expect(alert).toHaveText('');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(state).toHaveText('locked');
  await press(page, 'Unlock', PASS);
  await expect(alert).toContainText('Wrong passphrase');
  await press(page, 'Unlock', NEW_PASS);
  await expect(state).toHaveText('unlocked');
  expect(await keyFor(page)).toEqual({ key: KEY });

  // Remove: after a reload the vault opens without asking.
  await press(page, 'Remove passphrase', NEW_PASS);
  await expect(state).toHaveAttribute('data-has-passphrase', 'false');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(state).toHaveText('unlocked');
  expect(await keyFor(page)).toEqual({ key: KEY });

  // Forget everything, while locked.
  await press(page, 'Set passphrase', PASS);
  await expect(state).toHaveAttribute('data-has-passphrase', 'true');
  await press(page, 'Lock');
  await expect(state).toHaveText('locked');
  await press(page, 'Forget everything');
  await expect(state).toHaveAttribute('data-has-passphrase', 'false');
  await expect(page.getByTestId('keys')).toBeEmpty();
  expect(await keyFor(page)).toEqual({ key: undefined });
  const dump = await dumpIndexedDb(page);
  for (const form of encodings(KEY)) expect(dump).not.toContain(form);
});

test('locking in one tab locks the other tab', async ({ context }) => {
  const tabA = await context.newPage();
  const tabB = await context.newPage();
  await openHarness(tabA);
  await saveKeyThroughForm(tabA, KEY);
  await press(tabA, 'Set passphrase', PASS);
  await expect(tabA.getByTestId('vault-state')).toHaveAttribute('data-has-passphrase', 'true');
  await openHarness(tabB);
  await expect(tabB.getByTestId('vault-state')).toHaveText('locked');
  await press(tabB, 'Unlock', PASS);
  await expect(tabB.getByTestId('vault-state')).toHaveText('unlocked');
  expect(await keyFor(tabB)).toEqual({ key: KEY });
  await press(tabA, 'Lock');
  await expect(tabB.getByTestId('vault-state')).toHaveText('locked');
  expect((await keyFor(tabB)).error).toMatchObject({ code: 'locked' });
});

test('the stored and derived CryptoKeys cannot be exported or wrapped; PBKDF2 600k timing', async ({
  page,
}) => {
  await openHarness(page);
  const result = await page.evaluate(async () => {
    const rejects = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: Error) => e.name,
      );
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('baton-vault');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const keyring = await new Promise<{ key: CryptoKey }>((resolve, reject) => {
      const r = db.transaction('meta').objectStore('meta').get('keyring');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    db.close();
    const wrapper = await crypto.subtle.generateKey({ name: 'AES-KW', length: 256 }, false, ['wrapKey']);
    const h = (window as HarnessWindow).__vaultHarness!;
    const timings: number[] = [];
    let derived: CryptoKey | undefined;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      derived = await h.deriveKey('correct horse battery staple', h.randomBytes(16), h.iterations);
      timings.push(performance.now() - start);
    }
    return {
      stored: {
        extractable: keyring.key.extractable,
        raw: await rejects(crypto.subtle.exportKey('raw', keyring.key)),
        jwk: await rejects(crypto.subtle.exportKey('jwk', keyring.key)),
        wrap: await rejects(crypto.subtle.wrapKey('raw', keyring.key, wrapper, 'AES-KW')),
      },
      derived: {
        extractable: derived!.extractable,
        usages: derived!.usages,
        raw: await rejects(crypto.subtle.exportKey('raw', derived!)),
      },
      iterations: h.iterations,
      timings,
    };
  });
  expect(result.stored).toEqual({
    extractable: false,
    raw: 'InvalidAccessError',
    jwk: 'InvalidAccessError',
    wrap: 'InvalidAccessError',
  });
  expect(result.derived).toEqual({
    extractable: false,
    usages: ['encrypt', 'decrypt'],
    raw: 'InvalidAccessError',
  });
  expect(result.iterations).toBeGreaterThanOrEqual(600_000);
  const sorted = [...result.timings].sort((a, b) => a - b);
  const note = `PBKDF2-SHA256 ${result.iterations} iterations in Chromium: ${sorted.map((t) => `${t.toFixed(0)} ms`).join(', ')} (median ${sorted[1]!.toFixed(0)} ms)`;
  test.info().annotations.push({ type: 'timing', description: note });
  console.log(note);
});
