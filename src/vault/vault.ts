import { deleteDB } from 'idb';
import {
  deriveKey,
  generateDataKey,
  MIN_PBKDF2_ITERATIONS,
  open,
  randomBytes,
  SALT_BYTES,
  seal,
} from './crypto.ts';
import {
  type KeyRecord,
  type Keyring,
  openVaultDb,
  type PassphraseKdf,
  recordAad,
  type VaultDb,
  VERIFIER_TEXT,
  verifierAad,
} from './db.ts';
import { VaultError } from './errors.ts';
import { lastFour } from './redact.ts';

/** A saved key as the rest of the app sees it: its stored record without the sealed secret. */
export type KeyInfo = Omit<KeyRecord, 'iv' | 'ciphertext'>;

export interface SaveKeyInput {
  providerId: string;
  /** The provider's origin or any URL on it (`https://api.openai.com/v1` → `https://api.openai.com`). */
  origin: string;
  key: string;
  label?: string;
}

export type VaultState = 'unlocked' | 'locked';

export type VaultChange =
  | { kind: 'keys' } // a key was saved or deleted (here or in another tab)
  | { kind: 'locked' }
  | { kind: 'unlocked' }
  | { kind: 'passphrase' } // set, changed or removed
  | { kind: 'forgotten' }; // the whole vault was deleted

export interface VaultOptions {
  /**
   * PBKDF2-SHA256 iterations for passphrases set or changed from now on (default and floor: 600,000).
   * A vault whose stored count is lower is re-derived with this count on the next successful unlock.
   */
  iterations?: number;
}

export const MIN_PASSPHRASE_LENGTH = 8;

/** Why a passphrase is refused, in words for the user, or undefined when it is acceptable. */
export function passphraseProblem(passphrase: string): string | undefined {
  const length = [...passphrase.normalize('NFC')].length;
  if (passphrase.trim() === '') return 'The passphrase is empty.';
  if (length < MIN_PASSPHRASE_LENGTH) {
    return `The passphrase is too short: use at least ${MIN_PASSPHRASE_LENGTH} characters (a few words is best).`;
  }
  return undefined;
}

/** `new URL(x).origin` for http(s) URLs; anything else is refused. Never echoes its input (it may hold credentials). */
export function normalizeOrigin(input: string): string {
  let url: URL | undefined;
  try {
    url = new URL(input);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new VaultError(
      'bad-origin',
      'A key must be bound to an http(s) origin such as https://api.openai.com.',
    );
  }
  return url.origin;
}

type Message =
  | { kind: 'keys' }
  | { kind: 'keyring' }
  | { kind: 'lock'; keyringId: string }
  | { kind: 'forgotten' };

const MAX_ATTEMPTS = 3;

/**
 * The key vault: API keys in IndexedDB, encrypted with AES-256-GCM (fresh 12-byte IV per encryption,
 * AAD = record id + provider id + origin, so a ciphertext moved to another record fails to decrypt).
 *
 * Passphrase design: records are encrypted DIRECTLY under the current key, and that key is never
 * extractable, in either mode.
 * - Without a passphrase the key is a non-extractable CryptoKey stored in the `meta` store.
 * - With a passphrase the key is derived (PBKDF2-SHA256, ≥ 600,000 iterations, random 16-byte salt,
 *   non-extractable) and only the salt, the iteration count and a verifier are stored: nothing in
 *   IndexedDB alone can decrypt the keys.
 * - Setting, changing or removing the passphrase re-encrypts every record under the new key: read and
 *   decrypt everything, encrypt under the new key, then write all records AND the new keyring in ONE
 *   readwrite transaction that first checks nothing changed meanwhile. IndexedDB commits it whole or not
 *   at all, so a crash mid-change leaves the old passphrase working and loses nothing.
 * We chose this over wrapping a data key (wrapKey) because a wrappable key must be extractable, and an
 * unprotected vault's stored key could not be wrapped later anyway; a vault holds a few dozen keys, so
 * re-encrypting them is cheap next to the PBKDF2 derivation itself.
 * Limit: records written before a passphrase was set, and the old device key, may linger in the browser's
 * on-disk database files until it compacts them. Set the passphrase before saving keys, or rotate them.
 *
 * All operations of one vault run one at a time. Tabs are told of changes over a BroadcastChannel; a
 * write whose keyring changed underneath (another tab) is retried or refused, never applied with a stale
 * key. `lock()` in one tab locks the others too.
 */
export class Vault {
  readonly dbName: string;
  readonly #iterations: number;
  #db: VaultDb | undefined;
  #keyring: Keyring | undefined;
  /** The key the records are encrypted under, when unlocked. Never extractable. */
  #key: CryptoKey | undefined;
  /**
   * Every key decrypted, held while unlocked so a request does not wait on IndexedDB before it leaves.
   * Dropped on every change of the key or of the records (here, or announced by another tab); a load that
   * started before a change does not install its (stale) result (#generation). Another tab's change is
   * seen when its broadcast arrives, as every other change from another tab is.
   */
  #plain: { keys: PlainKey[] } | undefined;
  #generation = 0;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #listeners = new Set<(change: VaultChange) => void>();
  #channel: BroadcastChannel | undefined;

  private constructor(dbName: string, options: VaultOptions) {
    const iterations = options.iterations ?? MIN_PBKDF2_ITERATIONS;
    if (!Number.isInteger(iterations) || iterations < MIN_PBKDF2_ITERATIONS) {
      throw new VaultError('bad-input', `PBKDF2 needs at least ${MIN_PBKDF2_ITERATIONS} iterations.`);
    }
    this.dbName = dbName;
    this.#iterations = iterations;
  }

  /** Opens (creating if needed) the vault database. With a passphrase set, the vault starts locked. */
  static async open(dbName = 'baton-vault', options: VaultOptions = {}): Promise<Vault> {
    const vault = new Vault(dbName, options);
    await vault.#database();
    vault.#listen();
    return vault;
  }

  state(): VaultState {
    return this.hasPassphrase() && !this.#key ? 'locked' : 'unlocked';
  }

  hasPassphrase(): boolean {
    return this.#keyring?.mode === 'passphrase';
  }

  /** Saves a key bound to `origin`, replacing any key already saved for the same provider and origin. */
  async saveKey(input: SaveKeyInput): Promise<KeyInfo> {
    const providerId = checkProviderId(input.providerId);
    const origin = normalizeOrigin(input.origin);
    const key = checkKey(input.key);
    const label = input.label?.trim() || undefined;
    return this.#serial(async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const db = await this.#database();
        const { key: dataKey, keyringId } = this.#requireKey();
        const id = crypto.randomUUID();
        const sealed = await seal(dataKey, key, recordAad(id, providerId, origin));
        const record: KeyRecord = {
          id,
          providerId,
          origin,
          ...(label ? { label } : {}),
          last4: lastFour(key),
          createdAt: Date.now(),
          ...sealed,
        };
        const tx = db.transaction(['keys', 'meta'], 'readwrite');
        const written = await atomically(tx, async () => {
          const current = await tx.objectStore('meta').get('keyring');
          if (current?.id !== keyringId) return false;
          const keys = tx.objectStore('keys');
          // createdAt is the list's order: two saves within one millisecond must not tie (ties fell back
          // to the random ids). Read inside the write so another tab's save is counted too.
          for (const other of await keys.getAll()) {
            record.createdAt = Math.max(record.createdAt, other.createdAt + 1);
            if (other.providerId === providerId && other.origin === origin) await keys.delete(other.id);
          }
          await keys.put(record);
          return true;
        });
        if (!written) {
          await this.#refresh();
          continue;
        }
        this.#changed({ kind: 'keys' });
        return info(record);
      }
      throw busy();
    });
  }

  /** Every saved key without its secret, oldest first. Works while locked (nothing here is secret). */
  async listKeys(): Promise<KeyInfo[]> {
    return this.#serial(async () => {
      const db = await this.#database();
      const records = await db.getAll('keys');
      return records.sort((a, b) => a.createdAt - b.createdAt).map(info);
    });
  }

  /** Deletes a saved key. Returns false when there was none with that id. Works while locked. */
  async deleteKey(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const db = await this.#database();
      const tx = db.transaction('keys', 'readwrite');
      const existed = await atomically(tx, async () => {
        if ((await tx.store.getKey(id)) === undefined) return false;
        await tx.store.delete(id);
        return true;
      });
      if (!existed) return false;
      this.#changed({ kind: 'keys' });
      return true;
    });
  }

  /**
   * The plaintext key for a provider, for a request to `origin`: the only way to get one key out. Keys
   * are looked up by origin: undefined when none of the provider's keys is bound to `origin` (a host with
   * no key gets no key, whatever is saved for other hosts). Throws `locked` only when there is a key for
   * this origin and the vault is locked. Once unlocked, answers come from memory (see #plain).
   */
  async keyFor(providerId: string, origin: string): Promise<string | undefined> {
    const wanted = normalizeOrigin(origin);
    const plain = this.#plain?.keys ?? (await this.#serial(() => this.#plaintexts()));
    if (plain === 'locked') {
      if (!(await this.#hasRecord((r) => r.providerId === providerId && r.origin === wanted)))
        return undefined;
      throw lockedError();
    }
    const bound = plain.find((k) => k.providerId === providerId && k.origin === wanted);
    if (!bound) return undefined;
    if (bound.plaintext === undefined) throw corrupt(bound);
    return bound.plaintext;
  }

  /**
   * Every saved key bound to an origin other than `origin`, for egress to scrub out of a body going there;
   * with `providerId`, also the keys of other providers at `origin` (two MCP servers on one origin each
   * have their own token, mcp-preset.ts). Throws `locked` when the vault is locked and holds such keys
   * (they cannot be known, so not removed).
   */
  async keysNotBoundTo(origin: string, providerId?: string): Promise<string[]> {
    const wanted = normalizeOrigin(origin);
    const other = (k: Pick<KeyRecord, 'providerId' | 'origin'>) =>
      k.origin !== wanted || (providerId !== undefined && k.providerId !== providerId);
    const plain = this.#plain?.keys ?? (await this.#serial(() => this.#plaintexts()));
    if (plain === 'locked') {
      if (!(await this.#hasRecord(other))) return [];
      throw lockedError();
    }
    const foreign = plain.filter((k) => other(k) && k.plaintext !== undefined);
    return [...new Set(foreign.map((k) => k.plaintext as string))];
  }

  /** Protects the vault with a passphrase (re-encrypting every key under it). The vault stays unlocked. */
  async setPassphrase(passphrase: string): Promise<void> {
    checkStrength(passphrase);
    return this.#serial(async () => {
      await this.#refresh();
      if (this.hasPassphrase()) {
        throw new VaultError('has-passphrase', 'The vault already has a passphrase: change it instead.');
      }
      const { key, keyringId } = this.#requireKey();
      const next = await this.#passphraseKeyring(passphrase);
      await this.#rekey(key, keyringId, next.keyring, next.key);
      this.#changed({ kind: 'passphrase' });
    });
  }

  /** Derives the key from the passphrase; throws `wrong-passphrase` (and changes nothing) if it does not fit. */
  async unlock(passphrase: string): Promise<void> {
    return this.#serial(async () => {
      const { key, keyring } = await this.#verify(passphrase);
      this.#setKey(key);
      if (keyring.kdf.iterations < this.#iterations) {
        // Stored with an older, lower count: re-derive with today's (other tabs must unlock again).
        const next = await this.#passphraseKeyring(passphrase);
        await this.#rekey(key, keyring.id, next.keyring, next.key);
        this.#post({ kind: 'keyring' });
      }
      this.#emit({ kind: 'unlocked' });
    });
  }

  /** Forgets the in-memory key here and in other tabs. Only a vault with a passphrase can be locked. */
  lock(): void {
    const keyring = this.#keyring;
    if (keyring?.mode !== 'passphrase') {
      throw new VaultError(
        'no-passphrase',
        'The vault has no passphrase, so it cannot be locked: set one first.',
      );
    }
    const wasUnlocked = this.#key !== undefined;
    this.#setKey(undefined);
    this.#post({ kind: 'lock', keyringId: keyring.id });
    if (wasUnlocked) this.#emit({ kind: 'locked' });
  }

  /** Re-encrypts every key under a new passphrase; the old one must be right. Unlocked afterwards. */
  async changePassphrase(oldPassphrase: string, newPassphrase: string): Promise<void> {
    checkStrength(newPassphrase);
    return this.#serial(async () => {
      const { key, keyring } = await this.#verify(oldPassphrase);
      const next = await this.#passphraseKeyring(newPassphrase);
      await this.#rekey(key, keyring.id, next.keyring, next.key);
      this.#changed({ kind: 'passphrase' });
    });
  }

  /** Goes back to a stored device key (re-encrypting every key); the passphrase must be right. */
  async removePassphrase(passphrase: string): Promise<void> {
    return this.#serial(async () => {
      const { key, keyring } = await this.#verify(passphrase);
      const deviceKey = await generateDataKey();
      await this.#rekey(
        key,
        keyring.id,
        { id: crypto.randomUUID(), mode: 'device', key: deviceKey },
        deviceKey,
      );
      this.#changed({ kind: 'passphrase' });
    });
  }

  /** Deletes the whole database (keys, keyring, passphrase data); resolves once it is gone. Works while locked. */
  async forgetEverything(): Promise<void> {
    return this.#serial(async () => {
      this.#post({ kind: 'forgotten' });
      this.#db?.close();
      this.#db = undefined;
      this.#keyring = undefined;
      this.#setKey(undefined);
      // Other tabs' connections close themselves on `versionchange` (see openVaultDb's `blocking`).
      await deleteDB(this.dbName);
      this.#emit({ kind: 'forgotten' });
    });
  }

  /** Calls `listener` after every change (including those made in other tabs). Returns an unsubscribe function. */
  onChange(listener: (change: VaultChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the database connection and the tab channel, and forgets the key. */
  close(): void {
    this.#channel?.close();
    this.#channel = undefined;
    this.#db?.close();
    this.#db = undefined;
    this.#setKey(undefined);
  }

  // ---- internals ----

  #setKey(key: CryptoKey | undefined): void {
    if (key !== this.#key) this.#forgetPlain();
    this.#key = key;
  }

  #forgetPlain(): void {
    this.#plain = undefined;
    this.#generation += 1;
  }

  /** Every record decrypted (corrupt ones with no plaintext), newest first, or 'locked'. Run inside #serial. */
  async #plaintexts(): Promise<PlainKey[] | 'locked'> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const db = await this.#database();
      if (this.#plain) return this.#plain.keys;
      if (!this.#key || !this.#keyring) return 'locked';
      const { key, keyringId } = this.#requireKey();
      const generation = this.#generation;
      const records = (await db.getAll('keys')).sort((a, b) => b.createdAt - a.createdAt);
      const keys: PlainKey[] = [];
      for (const record of records) {
        const { id, providerId, origin } = record;
        const plaintext = await open(key, record, recordAad(id, providerId, origin));
        keys.push({ id, providerId, origin, ...(plaintext !== undefined ? { plaintext } : {}) });
      }
      if (keys.some((k) => k.plaintext === undefined)) {
        // Another tab may have re-encrypted everything under a new key: look again before calling it corrupt.
        await this.#refresh();
        if (this.#keyring?.id !== keyringId) continue;
      }
      if (generation === this.#generation && this.#key === key) this.#plain = { keys };
      return keys;
    }
    throw busy();
  }

  /** Whether a record matches, from the records' public fields (works while locked). */
  async #hasRecord(match: (record: KeyRecord) => boolean): Promise<boolean> {
    return this.#serial(async () => (await (await this.#database()).getAll('keys')).some(match));
  }

  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation, operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #database(): Promise<VaultDb> {
    if (this.#db) return this.#db;
    const db = await openVaultDb(this.dbName, (closed) => {
      if (this.#db === closed) this.#db = undefined;
    });
    this.#db = db;
    await this.#loadKeyring(db);
    return db;
  }

  /** Reads the keyring, creating a device key the first time. */
  async #loadKeyring(db: VaultDb): Promise<void> {
    let keyring = await db.get('meta', 'keyring');
    if (!keyring) {
      const fresh: Keyring = { id: crypto.randomUUID(), mode: 'device', key: await generateDataKey() };
      const tx = db.transaction('meta', 'readwrite');
      // Another tab may have created one while we generated ours: theirs wins.
      keyring = (await tx.store.get('keyring')) ?? fresh;
      if (keyring === fresh) await tx.store.put(fresh, 'keyring');
      await tx.done;
    }
    this.#adopt(keyring);
  }

  async #refresh(): Promise<void> {
    const db = await this.#database();
    await this.#loadKeyring(db);
  }

  #adopt(keyring: Keyring): void {
    if (this.#keyring?.id !== keyring.id) this.#setKey(undefined);
    this.#keyring = keyring;
    if (keyring.mode === 'device') this.#setKey(keyring.key);
  }

  #requireKey(): { key: CryptoKey; keyringId: string } {
    if (!this.#key || !this.#keyring) throw lockedError();
    return { key: this.#key, keyringId: this.#keyring.id };
  }

  /** Checks a passphrase against the stored verifier and returns the key it derives. */
  async #verify(
    passphrase: string,
  ): Promise<{ key: CryptoKey; keyring: Extract<Keyring, { mode: 'passphrase' }> }> {
    await this.#refresh();
    const keyring = this.#keyring;
    if (keyring?.mode !== 'passphrase') {
      throw new VaultError('no-passphrase', 'The vault has no passphrase.');
    }
    const wrong = new VaultError(
      'wrong-passphrase',
      'Wrong passphrase: the vault is still locked and nothing was changed.',
    );
    if (passphrase === '') throw wrong;
    const key = await deriveKey(passphrase, keyring.kdf.salt, keyring.kdf.iterations);
    if ((await open(key, keyring.verifier, verifierAad(keyring.id))) !== VERIFIER_TEXT) throw wrong;
    return { key, keyring };
  }

  async #passphraseKeyring(passphrase: string): Promise<{ keyring: Keyring; key: CryptoKey }> {
    const kdf: PassphraseKdf = {
      name: 'PBKDF2',
      hash: 'SHA-256',
      iterations: this.#iterations,
      salt: randomBytes(SALT_BYTES),
    };
    const key = await deriveKey(passphrase, kdf.salt, kdf.iterations);
    const id = crypto.randomUUID();
    const verifier = await seal(key, VERIFIER_TEXT, verifierAad(id));
    return { keyring: { id, mode: 'passphrase', kdf, verifier }, key };
  }

  /**
   * Re-encrypts every record from `oldKey` to `newKey` and installs `keyring`, all in one transaction
   * that aborts if the records or the keyring changed since they were read (then tries again).
   */
  async #rekey(oldKey: CryptoKey, oldKeyringId: string, keyring: Keyring, newKey: CryptoKey): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const db = await this.#database();
      const before = await db.getAll('keys');
      const rewritten: KeyRecord[] = [];
      for (const record of before) {
        const aad = recordAad(record.id, record.providerId, record.origin);
        const plaintext = await open(oldKey, record, aad);
        if (plaintext === undefined) throw corrupt(record);
        rewritten.push({ ...record, ...(await seal(newKey, plaintext, aad)) });
      }
      const tx = db.transaction(['keys', 'meta'], 'readwrite');
      let keyringChanged = false;
      const written = await atomically(tx, async () => {
        const current = await tx.objectStore('meta').get('keyring');
        keyringChanged = current?.id !== oldKeyringId;
        if (keyringChanged || !sameRecords(before, await tx.objectStore('keys').getAll())) return false;
        // All or nothing: a failure on any of these puts aborts the whole transaction (see atomically).
        for (const record of rewritten) await tx.objectStore('keys').put(record);
        await tx.objectStore('meta').put(keyring, 'keyring');
        return true;
      });
      if (keyringChanged) {
        await this.#refresh();
        throw new VaultError(
          'busy',
          'The vault was changed in another tab; nothing was changed here. Try again.',
        );
      }
      if (!written) continue;
      this.#keyring = keyring;
      this.#setKey(newKey);
      return;
    }
    throw busy();
  }

  #listen(): void {
    if (typeof BroadcastChannel === 'undefined') return;
    const channel = new BroadcastChannel(`baton-vault:${this.dbName}`);
    // Node keeps the process alive for an open channel; a browser has no unref.
    (channel as { unref?: () => void }).unref?.();
    channel.onmessage = (event: MessageEvent<Message>) => {
      const message = event.data;
      if (message.kind === 'keys') {
        this.#forgetPlain();
        this.#emit({ kind: 'keys' });
      } else if (message.kind === 'lock') {
        if (this.#keyring?.id === message.keyringId && this.#key) {
          this.#setKey(undefined);
          this.#emit({ kind: 'locked' });
        }
      } else if (message.kind === 'forgotten') {
        this.#db?.close();
        this.#db = undefined;
        this.#keyring = undefined;
        this.#setKey(undefined);
        this.#emit({ kind: 'forgotten' });
      } else if (message.kind === 'keyring') {
        void this.#serial(() => this.#refresh()).then(
          () => this.#emit({ kind: 'passphrase' }),
          () => undefined,
        );
      }
    };
    this.#channel = channel;
  }

  #post(message: Message): void {
    this.#channel?.postMessage(message);
  }

  /** Tells listeners here, and the other tabs. */
  #changed(change: VaultChange): void {
    this.#forgetPlain();
    this.#post(change.kind === 'keys' ? { kind: 'keys' } : { kind: 'keyring' });
    this.#emit(change);
  }

  #emit(change: VaultChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        console.error('A vault listener failed', error);
      }
    }
  }
}

/** Opens the vault; see {@link Vault} for the design. */
export function openVault(dbName = 'baton-vault', options: VaultOptions = {}): Promise<Vault> {
  return Vault.open(dbName, options);
}

function info(record: KeyRecord): KeyInfo {
  const { id, providerId, origin, label, last4, createdAt } = record;
  return { id, providerId, origin, ...(label ? { label } : {}), last4, createdAt };
}

function checkProviderId(providerId: string): string {
  const id = providerId.trim();
  if (!id) throw new VaultError('bad-input', 'A key needs a provider id.');
  return id;
}

function checkKey(key: string): string {
  const trimmed = key.trim();
  if (!trimmed) throw new VaultError('bad-key', 'The key is empty.');
  // Keys travel in HTTP headers: printable ASCII only. (Never quote the key back in the message.)
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new VaultError(
      'bad-key',
      'The key contains spaces, control or non-ASCII characters: copy it again from the provider.',
    );
  }
  return trimmed;
}

function checkStrength(passphrase: string): void {
  const problem = passphraseProblem(passphrase);
  if (problem) throw new VaultError('weak-passphrase', problem);
}

/** A decrypted record as held in memory: its public fields and, unless it failed to decrypt, the key. */
interface PlainKey {
  id: string;
  providerId: string;
  origin: string;
  plaintext?: string;
}

function lockedError(): VaultError {
  return new VaultError('locked', 'The vault is locked: unlock it with your passphrase to use saved keys.');
}

function corrupt(record: Pick<KeyRecord, 'providerId' | 'origin'>): VaultError {
  return new VaultError(
    'corrupt',
    `The saved key for provider "${record.providerId}" (${record.origin}) cannot be decrypted: delete it and save it again.`,
  );
}

function busy(): VaultError {
  return new VaultError(
    'busy',
    'The vault kept changing in another tab; nothing was changed here. Try again.',
  );
}

function sameRecords(a: KeyRecord[], b: KeyRecord[]): boolean {
  if (a.length !== b.length) return false;
  const ivs = new Map(a.map((r) => [r.id, r.iv]));
  return b.every((r) => {
    const iv = ivs.get(r.id);
    return iv !== undefined && iv.length === r.iv.length && iv.every((byte, i) => byte === r.iv[i]);
  });
}

type Tx = { abort(): void; done: Promise<void> };

/**
 * Runs `body` inside `tx`: it returns true to commit (then waits for the commit) or false to abort.
 * Any error, even one thrown synchronously between two requests, aborts too: otherwise IndexedDB would
 * auto-commit the requests already made, and a half-written re-encryption would lose keys.
 */
async function atomically(tx: Tx, body: () => Promise<boolean>): Promise<boolean> {
  let commit: boolean;
  try {
    commit = await body();
  } catch (error) {
    await abort(tx);
    throw error;
  }
  if (!commit) {
    await abort(tx);
    return false;
  }
  await tx.done;
  return true;
}

async function abort(tx: Tx): Promise<void> {
  try {
    tx.abort();
  } catch {
    // Already finished (committed or aborted by a failed request): nothing to undo here.
  }
  await tx.done.catch(() => undefined);
}
